import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { waitUntil } from '../support/waits.js';
import { EventConsumer } from '../support/event-consumer.js';
import { RabbitMqClient } from '../../src/messaging/rabbitmq.client.js';
import { MAX_ATTEMPTS } from '../../src/outbox/outbox.relay.js';
import { ServiceProcess } from '../support/service-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { createTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

const RABBIT_PORT = 5672;
const viaProxy = (proxy: TcpProxy) => ({ RABBITMQ_URL: `amqp://guest:guest@127.0.0.1:${proxy.port}` });

interface Received {
  eventId: string;
  eventType: string;
  ticketId: number;
}

/** Asserts every event id arrived exactly once and each ticket's events came in the order given. */
function expectExactlyOnceInOrder(received: Received[], expected: Map<number, string[]>) {
  const ids = received.map((event) => event.eventId);
  expect(new Set(ids).size).toBe(ids.length);
  for (const [ticketId, types] of expected) {
    expect([ticketId, received.filter((event) => event.ticketId === ticketId).map((event) => event.eventType)]).toEqual([ticketId, types]);
  }
}

describe('Outbox delivery', () => {
  let consumer: EventConsumer;
  let proxy: TcpProxy;

  beforeAll(async () => {
    consumer = await EventConsumer.start();
    proxy = await TcpProxy.start(RABBIT_PORT);
  });

  afterAll(async () => {
    await consumer.stop();
    await proxy.stop();
  });

  const received = (ticketIds: Set<number>) => consumer.bodies().filter((b) => ticketIds.has(b.ticketId)) as Received[];

  it('delivers every event of 200 writes made while the broker was cut, once each and in order per ticket', async () => {
    const app: INestApplication = await createTestApp({ env: viaProxy(proxy) });
    try {
      const http = request(app.getHttpServer());
      proxy.cut();
      const tickets = await Promise.all(
        Array.from({ length: 100 }, () => http.post('/api/tickets').send(buildTicketRequest()).expect(201)),
      );
      const ids = tickets.map((response) => response.body.id as number);
      await Promise.all(
        ids.map((id) =>
          http
            .put(`/api/tickets/${id}`)
            .send(buildTicketRequest({ status: 'IN_PROGRESS' }))
            .expect(200),
        ),
      );

      const pending = await app
        .get(DataSource)
        .query("SELECT COUNT(*) AS n FROM change_log WHERE ticket_id IN (?) AND relay_status = 'pending'", [ids]);
      expect(Number(pending[0].n)).toBe(200);

      proxy.restore();
      const idSet = new Set(ids);
      await consumer.waitFor(() => received(idSet).length >= 200, 30_000);
      expectExactlyOnceInOrder(received(idSet), new Map(ids.map((id) => [id, ['CREATED', 'UPDATED']])));
    } finally {
      proxy.restore();
      await app.close();
    }
  });

  it("publishes once what a request recorded, also when the broker confirms after that request's database deadline", async () => {
    // The relay pass a request kicks must not inherit the request's deadline: if it did, deleting the confirmed
    // event published would be refused as too late, and the next pass would publish the event a second time.
    const app: INestApplication = await createTestApp({ env: { ...viaProxy(proxy), DB_QUERY_TIMEOUT_MS: '300' } });
    try {
      await waitUntil(() => app.get(RabbitMqClient).isConnected());
      proxy.delayMs = 400;
      const http = request(app.getHttpServer());
      const { body } = await http.post('/api/tickets').send(buildTicketRequest()).expect(201);
      const ticket = new Set([body.id as number]);
      await consumer.waitFor(() => received(ticket).length >= 1, 10_000);
      const waiting = async () =>
        Number(
          (
            await app
              .get(DataSource)
              .query("SELECT COUNT(*) AS n FROM change_log WHERE ticket_id = ? AND relay_status = 'pending'", [body.id])
          )[0].n,
        );
      await waitUntil(async () => (await waiting()) === 0);
      // A later event of the same ticket goes out behind the first in its partition: had the first stayed pending
      // for another pass, its second publication would arrive before this one.
      await http
        .put(`/api/tickets/${body.id}`)
        .send(buildTicketRequest({ title: 'marker' }))
        .expect(200);
      await consumer.waitFor(() => received(ticket).some((event) => event.eventType === 'UPDATED'), 10_000);
      expect(received(ticket).map((event) => event.eventType)).toEqual(['CREATED', 'UPDATED']);
    } finally {
      proxy.delayMs = 0;
      await app.close();
    }
  });

  it('parks an event the broker keeps refusing, reports it, and goes on with the events behind it', async () => {
    // A queue that rejects every message makes the broker nack each publish to the exchange (publisher confirms).
    const broker = await amqp.connect(process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
    const channel = await broker.createChannel();
    const refusing = `ticket.refusing.test.${randomUUID()}`;
    await channel.assertQueue(refusing, { autoDelete: false, arguments: { 'x-max-length': 0, 'x-overflow': 'reject-publish' } });
    await channel.bindQueue(refusing, process.env.RABBITMQ_EXCHANGE!, process.env.RABBITMQ_ROUTING_KEY!);
    const app: INestApplication = await createTestApp();
    try {
      const db = app.get(DataSource);
      // An event already refused MAX_ATTEMPTS - 1 times: one more refusal parks it.
      const poison = { eventId: randomUUID(), eventType: 'CREATED', occurredAt: new Date().toISOString(), ticketId: 0, ticket: null };
      await db.query(
        'INSERT INTO change_log (event_id, event_type, ticket_id, payload, occurred_at, attempts) VALUES (?, ?, 0, ?, NOW(3), ?)',
        [poison.eventId, poison.eventType, JSON.stringify(poison), MAX_ATTEMPTS - 1],
      );
      const row = async () =>
        (await db.query('SELECT attempts, parked_at, last_error, relay_status FROM change_log WHERE event_id = ?', [poison.eventId]))[0];
      await waitUntil(async () => (await row())?.parked_at !== null);
      expect(await row()).toMatchObject({ attempts: MAX_ATTEMPTS, last_error: expect.any(String), relay_status: 'parked' });
      const health = await request(app.getHttpServer()).get('/actuator/health/outbox');
      expect(health.body.details.parked).toBeGreaterThanOrEqual(1);

      await channel.deleteQueue(refusing);
      const { body } = await request(app.getHttpServer()).post('/api/tickets').send(buildTicketRequest()).expect(201);
      await consumer.waitFor(() => received(new Set([body.id as number])).length === 1, 15_000);
      // Parked means left alone: not retried once publishing works again, kept for an operator to look at.
      expect(await row()).toMatchObject({ attempts: MAX_ATTEMPTS, parked_at: expect.any(Date), relay_status: 'parked' });
    } finally {
      await app.get(DataSource).query("DELETE FROM change_log WHERE ticket_id = 0 AND event_type = 'CREATED'");
      await channel.deleteQueue(refusing).catch(() => undefined);
      await broker.close();
      await app.close();
    }
  });

  it('publishes after a crash what the killed process had not', async () => {
    proxy.cut();
    const doomed = await ServiceProcess.start(viaProxy(proxy));
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${doomed.url}/api/tickets`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(buildTicketRequest()),
      });
      expect(response.status).toBe(201);
      ids.push(((await response.json()) as { id: number }).id);
    }
    doomed.kill('SIGKILL');
    await doomed.exited;
    proxy.restore();

    const successor = await ServiceProcess.start();
    try {
      const idSet = new Set(ids);
      await consumer.waitFor(() => received(idSet).length >= 20, 30_000);
      expectExactlyOnceInOrder(received(idSet), new Map(ids.map((id) => [id, ['CREATED']])));
    } finally {
      await successor.stop();
    }
  });

  it('loses nothing and duplicates nothing with two replicas relaying the same table', async () => {
    const replicas = await Promise.all([ServiceProcess.start(), ServiceProcess.start()]);
    try {
      const write = async (replica: ServiceProcess, path: string, method: string) => {
        const response = await fetch(`${replica.url}${path}`, {
          method,
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(buildTicketRequest({ status: method === 'PUT' ? 'RESOLVED' : 'OPEN' })),
        });
        expect(response.status).toBe(method === 'PUT' ? 200 : 201);
        return ((await response.json()) as { id: number }).id;
      };
      const ids = await Promise.all(Array.from({ length: 100 }, (_, i) => write(replicas[i % 2], '/api/tickets', 'POST')));
      // Each update goes through the other replica than the create did.
      await Promise.all(ids.map((id, i) => write(replicas[(i + 1) % 2], `/api/tickets/${id}`, 'PUT')));

      const idSet = new Set(ids);
      await consumer.waitFor(() => received(idSet).length >= 200, 30_000);
      // A marker on each ticket goes out behind that ticket's earlier events in their partition, so a duplicate
      // of either of them, from whichever replica, arrives before the ticket's marker does.
      await Promise.all(ids.map((id, i) => write(replicas[i % 2], `/api/tickets/${id}`, 'PUT')));
      await consumer.waitFor(() => new Set(received(idSet).map((event) => event.eventId)).size === 300, 30_000);
      expect(received(idSet)).toHaveLength(300);
      expectExactlyOnceInOrder(received(idSet), new Map(ids.map((id) => [id, ['CREATED', 'UPDATED', 'UPDATED']])));
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop()));
    }
  });
});
