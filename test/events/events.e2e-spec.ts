import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import amqp from 'amqplib';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { OutboxWriter } from '../../src/outbox/outbox.writer.js';
import { waitUntil } from '../support/waits.js';
import { EventConsumer } from '../support/event-consumer.js';
import { createTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_UTC_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('Ticket events on RabbitMQ', () => {
  let app: INestApplication;
  let http: ReturnType<typeof request>;
  let consumer: EventConsumer;
  /** A new consumer's queue, bound to every ticket event kind. */
  let everything: EventConsumer;

  beforeAll(async () => {
    app = await createTestApp();
    http = request(app.getHttpServer());
    consumer = await EventConsumer.start();
    everything = await EventConsumer.bound('ticket.#');
  });

  afterAll(async () => {
    await everything.stop();
    await consumer.stop();
    await app.close();
  });

  const waitingForBroker = async () =>
    Number((await app.get(DataSource).query("SELECT COUNT(*) AS n FROM change_log WHERE relay_status = 'pending'"))[0].n);

  it('publishes CREATED after a create: plain JSON body with the ticket as created, and AMQP properties', async () => {
    const ticket = (await http.post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    await consumer.waitFor(() => consumer.forTicket(ticket.id).length === 1);
    const [message] = consumer.forTicket(ticket.id);
    const body = JSON.parse(message.content.toString('utf8'));

    expect(Object.keys(body)).toEqual(['eventId', 'eventType', 'occurredAt', 'ticketId', 'ticket']);
    expect(body).toEqual({
      eventId: expect.stringMatching(UUID),
      eventType: 'CREATED',
      occurredAt: expect.stringMatching(ISO_UTC_MILLIS),
      ticketId: ticket.id,
      ticket,
    });
    expect(message.fields).toMatchObject({ exchange: process.env.RABBITMQ_EXCHANGE, routingKey: 'ticket.routing.key' });
    expect(message.properties).toMatchObject({
      contentType: 'application/json',
      contentEncoding: 'UTF-8',
      deliveryMode: 2,
      messageId: body.eventId,
      type: 'CREATED',
      timestamp: Math.floor(Date.parse(body.occurredAt) / 1000),
    });
  });

  it('publishes UPDATED after a replace, carrying the ticket as the update left it', async () => {
    const ticket = (await http.post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    const updated = (
      await http
        .put(`/api/tickets/${ticket.id}`)
        .send(buildTicketRequest({ status: 'RESOLVED' }))
        .expect(200)
    ).body;
    await consumer.waitFor(() => consumer.forTicket(ticket.id).length === 2);

    const bodies = consumer.forTicket(ticket.id).map((m) => JSON.parse(m.content.toString('utf8')));
    expect(bodies.map((b) => b.eventType)).toEqual(['CREATED', 'UPDATED']);
    expect(bodies[1].ticket).toEqual(updated);
    expect(bodies[1].ticket.resolvedAt).toEqual(expect.stringMatching(ISO_UTC_MILLIS));
    expect(bodies[0].eventId).not.toBe(bodies[1].eventId);
  });

  it('publishes nothing to the v1 queue for a delete, a failed validation or a missing ticket, and leaves no change waiting for it', async () => {
    const ticket = (await http.post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    await http.delete(`/api/tickets/${ticket.id}`).expect(204);
    await http.put(`/api/tickets/${ticket.id}`).send(buildTicketRequest()).expect(404);
    await http.delete(`/api/tickets/${ticket.id}`).expect(404);
    await http
      .post('/api/tickets')
      .send(buildTicketRequest({ title: '' }))
      .expect(400);

    // Its two events, then a later ticket's, so that an event published for the rest would be in as well.
    await everything.waitFor(() => everything.forTicket(ticket.id).length >= 2);
    const marker = (await http.post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    await consumer.waitFor(() => consumer.forTicket(marker.id).length === 1);
    await everything.waitFor(() => everything.forTicket(marker.id).length === 1);
    expect(consumer.typesFor(ticket.id)).toEqual(['CREATED']);
    expect(everything.typesFor(ticket.id)).toEqual(['CREATED', 'DELETED']);
    // The marker's own row is marked published once its confirm is processed, which may be just after the consumer saw it.
    await waitUntil(async () => (await waitingForBroker()) === 0, 10_000, 'nothing waiting for RabbitMQ');
  });

  it('publishes DELETED with routing key ticket.deleted, the same envelope and the ticket as it was last stored, with its tags', async () => {
    const created = (await http.post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    const last = (
      await http
        .put(`/api/tickets/${created.id}`)
        .send(buildTicketRequest({ status: 'CLOSED' }))
        .expect(200)
    ).body;
    await http
      .delete(`/api/tickets/${created.id}`)
      .set('If-Match', `"${created.id}-${Date.parse(last.updatedAt)}"`)
      .expect(204);
    await everything.waitFor(() => everything.forTicket(created.id).length === 3);

    const deletion = everything.forTicket(created.id)[2];
    const body = JSON.parse(deletion.content.toString('utf8'));
    expect(Object.keys(body)).toEqual(['eventId', 'eventType', 'occurredAt', 'ticketId', 'ticket']);
    expect(body).toEqual({
      eventId: expect.stringMatching(UUID),
      eventType: 'DELETED',
      occurredAt: expect.stringMatching(ISO_UTC_MILLIS),
      ticketId: created.id,
      ticket: { ...last, tags: [], fields: {} },
    });
    expect(deletion.fields).toMatchObject({ exchange: process.env.RABBITMQ_EXCHANGE, routingKey: 'ticket.deleted' });
    expect(deletion.properties).toMatchObject({
      contentType: 'application/json',
      deliveryMode: 2,
      messageId: body.eventId,
      type: 'DELETED',
    });
    expect(everything.forTicket(created.id).map((m) => m.fields.routingKey)).toEqual([
      'ticket.routing.key',
      'ticket.routing.key',
      'ticket.deleted',
    ]);
    // The v1 queue never sees it.
    await consumer.waitFor(() => consumer.forTicket(created.id).length === 2);
    const marker = (await http.post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    await consumer.waitFor(() => consumer.forTicket(marker.id).length === 1);
    expect(consumer.typesFor(created.id)).toEqual(['CREATED', 'UPDATED']);
  });

  it('keeps the ticket when the DELETED event cannot be recorded: no delete without its event', async () => {
    const ticket = (await http.post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    const record = jest.spyOn(app.get(OutboxWriter), 'record').mockRejectedValueOnce(new Error('outbox insert failed'));
    try {
      await http.delete(`/api/tickets/${ticket.id}`).expect(500);
    } finally {
      record.mockRestore();
    }
    await http.get(`/api/tickets/${ticket.id}`).expect(200);
  });

  it('rolls the ticket back when its event cannot be recorded: no write without its event', async () => {
    const writer = app.get(OutboxWriter);
    const record = jest.spyOn(writer, 'record').mockRejectedValueOnce(new Error('outbox insert failed'));
    const before = (await http.get('/api/tickets').expect(200)).body.length;

    try {
      const response = await http.post('/api/tickets').send(buildTicketRequest()).expect(500);
      expect(response.body).toMatchObject({ status: 500, error: 'Internal Server Error', path: '/api/tickets' });
      expect(response.body).not.toHaveProperty('message');
      expect((await http.get('/api/tickets').expect(200)).body.length).toBe(before);
    } finally {
      record.mockRestore();
    }
  });

  it('declares a durable topic exchange and a durable queue bound with ticket.routing.key', async () => {
    const connection = await amqp.connect(process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
    try {
      const channel = await connection.createChannel();
      channel.on('error', () => undefined);
      // Re-declaring with the same properties succeeds only if they match what the service declared.
      await channel.assertExchange(process.env.RABBITMQ_EXCHANGE!, 'topic', { durable: true });
      await channel.assertQueue(process.env.RABBITMQ_QUEUE!, { durable: true });
      await expect(channel.assertExchange(process.env.RABBITMQ_EXCHANGE!, 'direct', { durable: true })).rejects.toThrow(/PRECONDITION/);

      const probe = await connection.createChannel();
      probe.publish(process.env.RABBITMQ_EXCHANGE!, 'ticket.routing.key', Buffer.from('{}'), { messageId: 'binding-probe' });
      // The service's queue receives what is routed with ticket.routing.key (the consumer sees the probe too).
      await consumer.waitFor(() => consumer.messages.some((m) => m.properties.messageId === 'binding-probe'));
    } finally {
      await connection.close().catch(() => undefined);
    }
  });
});

describe('Writes while the broker is unreachable', () => {
  it('still answer 2xx and keep the event pending', async () => {
    const app = await createTestApp({ env: { RABBITMQ_URL: 'amqp://guest:guest@127.0.0.1:1' } });
    try {
      const http = request(app.getHttpServer());
      const ticket = (await http.post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
      await http.put(`/api/tickets/${ticket.id}`).send(buildTicketRequest()).expect(200);
      const rows = await app
        .get(DataSource)
        .query("SELECT event_type FROM change_log WHERE ticket_id = ? AND relay_status = 'pending' ORDER BY id", [ticket.id]);
      expect(rows.map((r: { event_type: string }) => r.event_type)).toEqual(['CREATED', 'UPDATED']);
    } finally {
      await app.close();
    }
  });
});
