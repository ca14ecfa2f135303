import { randomUUID } from 'node:crypto';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { RabbitMqClient } from '../../src/messaging/rabbitmq.client.js';
import { EventConsumer } from '../support/event-consumer.js';
import { deliveryReport, received } from '../support/delivery.js';
import { waitUntil } from '../support/waits.js';
import { ServiceProcess } from '../support/service-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { createTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

const BROKER_URL = process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const BROKER_PORT = Number(new URL(BROKER_URL).port || 5672);

describe('Broker settings', () => {
  let broker: ChannelModel;
  let channel: Channel;

  beforeAll(async () => {
    broker = await amqp.connect(BROKER_URL);
    broker.on('error', () => undefined);
  });

  beforeEach(async () => {
    channel = await broker.createChannel();
    // A refused declaration closes the channel; the test then opens another.
    channel.on('error', () => undefined);
  });

  afterAll(async () => {
    await broker.close();
  });

  /** Whether re-declaring `queue` with these arguments is accepted, i.e. they are the queue's own. */
  async function declaredWith(queue: string, args: Record<string, unknown>): Promise<boolean> {
    const probe = await broker.createChannel();
    probe.on('error', () => undefined);
    try {
      await probe.assertQueue(queue, { durable: true, arguments: args });
      await probe.close();
      return true;
    } catch {
      return false;
    }
  }

  describe('queue type and arguments', () => {
    it('declares a quorum queue with the length limit, message TTL and dead-letter exchange asked for', async () => {
      const queue = `ticket.queue.quorum.test.${randomUUID()}`;
      const args = { 'x-queue-type': 'quorum', 'x-max-length': 1000, 'x-message-ttl': 60_000, 'x-dead-letter-exchange': 'ticket.dlx' };
      const app = await createTestApp({
        env: {
          RABBITMQ_QUEUE: queue,
          RABBITMQ_QUEUE_TYPE: 'quorum',
          RABBITMQ_QUEUE_MAX_LENGTH: '1000',
          RABBITMQ_QUEUE_MESSAGE_TTL_MS: '60000',
          RABBITMQ_QUEUE_DEAD_LETTER_EXCHANGE: 'ticket.dlx',
        },
      });
      try {
        await waitUntil(() => app.get(RabbitMqClient).canPublish());
        expect(await declaredWith(queue, args)).toBe(true);
        expect(await declaredWith(queue, {})).toBe(false);
      } finally {
        await app.close();
        await channel.deleteQueue(queue);
      }
    });

    it('keeps declaring a classic queue without arguments by default, as earlier versions did', async () => {
      const app = await createTestApp();
      try {
        await waitUntil(() => app.get(RabbitMqClient).canPublish());
        expect(await declaredWith(process.env.RABBITMQ_QUEUE!, {})).toBe(true);
      } finally {
        await app.close();
      }
    });

    it('ends start-up with one line naming the queue and the mismatch when the queue exists with other arguments', async () => {
      await channel.assertQueue(process.env.RABBITMQ_QUEUE!, { durable: true });
      const service = await ServiceProcess.launch({ RABBITMQ_QUEUE_TYPE: 'quorum' });
      expect(await service.exited).toBe(1);
      const lines = service.output
        .trim()
        .split('\n')
        .filter((line) => line.includes('Start-up failed'));
      expect(lines).toHaveLength(1);
      const { message } = JSON.parse(lines[0]);
      expect(message).toContain(`RabbitMQ queue '${process.env.RABBITMQ_QUEUE}' exists with other arguments than configured`);
      expect(message).toContain("inequivalent arg 'x-queue-type'");
      expect(service.output).not.toMatch(/\n\s+at /);
    });
  });

  describe('several broker addresses', () => {
    let consumer: EventConsumer;
    let first: TcpProxy;
    let second: TcpProxy;

    beforeAll(async () => {
      consumer = await EventConsumer.start();
      [first, second] = [await TcpProxy.start(BROKER_PORT), await TcpProxy.start(BROKER_PORT)];
    });

    afterAll(async () => {
      await consumer.stop();
      await first.stop();
      await second.stop();
    });

    const addresses = () => ({ SPRING_RABBITMQ_ADDRESSES: `127.0.0.1:${first.port},127.0.0.1:${second.port}` });

    it('connects through the next address when the first cannot be reached', async () => {
      first.cut();
      const app = await createTestApp({ env: addresses() });
      try {
        await waitUntil(() => app.get(RabbitMqClient).canPublish());
        const { body } = await request(app.getHttpServer()).post('/api/tickets').send(buildTicketRequest()).expect(201);
        await consumer.waitFor(() => consumer.forTicket(body.id).length === 1);
      } finally {
        first.restore();
        await app.close();
      }
    });

    it('reconnects to another address when the broker it is connected to goes away, and goes on publishing', async () => {
      const app = await createTestApp({ env: addresses() });
      const http = request(app.getHttpServer());
      try {
        await waitUntil(() => app.get(RabbitMqClient).canPublish());
        first.cut();
        const { body } = await http.post('/api/tickets').send(buildTicketRequest()).expect(201);
        await consumer.waitFor(() => consumer.forTicket(body.id).length === 1, 15_000);
        const health = await http.get('/actuator/health/rabbit').expect(200);
        expect(health.body.status).toBe('UP');
      } finally {
        first.restore();
        await app.close();
      }
    });
  });

  it('keeps each ticket in order when the connection drops in the middle of large batches', async () => {
    // Events of 16 KB, 10 per ticket, recorded as the service records them; the connection is cut while they go out.
    const consumer = await EventConsumer.start();
    const proxy = await TcpProxy.start(BROKER_PORT);
    const app = await createTestApp({ env: { RABBITMQ_URL: `amqp://guest:guest@127.0.0.1:${proxy.port}` } });
    const tickets = Array.from({ length: 100 }, (_, i) => 2_000_000_000 + Math.floor(Math.random() * 1_000_000) * 100 + i);
    try {
      const db = app.get(DataSource);
      proxy.cut();
      const filler = 'x'.repeat(16_000);
      for (let step = 0; step < 10; step++) {
        const rows = tickets.map((ticketId) => {
          const event = {
            eventId: randomUUID(),
            eventType: step === 0 ? 'CREATED' : 'UPDATED',
            occurredAt: new Date().toISOString(),
            ticketId,
            ticket: { title: `step ${step}`, filler },
          };
          return [event.eventId, event.eventType, ticketId, ticketId % 8, JSON.stringify(event)];
        });
        await db.query(
          `INSERT INTO change_log (event_id, event_type, ticket_id, partition_no, payload, occurred_at) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, NOW(3))').join(', ')}`,
          rows.flat(),
        );
      }
      proxy.restore();
      await consumer.waitFor(() => consumer.messages.length > 0, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 30));
      proxy.cut();
      proxy.restore();
      const acknowledged = new Map(tickets.map((ticketId) => [ticketId, 10]));
      await consumer.waitFor(() => deliveryReport(received(consumer.bodies()), acknowledged).lost === 0, 60_000);
      expect(deliveryReport(received(consumer.bodies()), acknowledged).outOfOrder).toEqual([]);
    } finally {
      await app.get(DataSource).query('DELETE FROM change_log WHERE ticket_id >= 2000000000');
      await app.close();
      await proxy.stop();
      await consumer.stop();
    }
  });
});
