import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { typeOrmOptions } from '../../src/database/typeorm-options.js';
import { parseConfig } from '../../src/config/app-config.js';
import { newSecret } from '../../src/webhooks/webhook-message.js';
import { connectToDatabase, useOwnDatabase } from '../support/database.js';
import { EventConsumer } from '../support/event-consumer.js';
import { createTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { waitUntil } from '../support/waits.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

type Json = Record<string, any>;

/**
 * An installation running the release before the change log (an `outbox` table and a `change_feed` table, and a
 * delivery row per endpoint per change) upgrades with what was in flight intact: the events waiting for RabbitMQ
 * are published, the parked one stays parked, the changes not yet numbered are numbered in order, and the pending
 * delivery goes out, once, while the endpoint's later changes come from the log.
 */
const database = useOwnDatabase('change_log_upgrade');

describe('Upgrading to the change log', () => {
  let app: INestApplication | undefined;
  let receiver: WebhookReceiver;
  let consumer: EventConsumer;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    consumer = await EventConsumer.bound('ticket.#');
  });
  afterAll(async () => {
    await app?.close();
    await receiver.stop();
    await consumer.stop();
  });

  it('keeps pending outbox events, unnumbered feed changes and pending webhook deliveries', async () => {
    // The schema of the release before: every migration before OneChangeLog.
    const admin = await connectToDatabase({ database: undefined });
    await admin.query(`CREATE DATABASE \`${database}\``);
    await admin.end();
    const options = typeOrmOptions(parseConfig({ ...process.env, DB_DATABASE: database }).db);
    const migrations = options.migrations as Array<new () => unknown>;
    const oneChangeLog = migrations.findIndex((migration) => migration.name === 'OneChangeLog1763900023000');
    expect(oneChangeLog).toBeGreaterThan(0);
    const before = new DataSource({ ...options, migrations: migrations.slice(0, oneChangeLog) });
    await before.initialize();
    await before.runMigrations();

    const event = (eventType: string, ticketId: number) => {
      const body = { eventId: randomUUID(), eventType, occurredAt: new Date().toISOString(), ticketId, ticket: { id: ticketId } };
      return { ...body, json: JSON.stringify(body) };
    };
    const published = event('CREATED', 900001);
    const pending = event('UPDATED', 900001);
    const parked = event('CREATED', 900002);
    const beforeTheFeed = event('UPDATED', 900002);
    const feedRow = (e: ReturnType<typeof event>, seq: number | null) =>
      before.query(
        'INSERT INTO change_feed (seq, sequenced_at, event_id, event_type, ticket_id, occurred_at, payload) VALUES (?, ?, ?, ?, ?, NOW(3), ?)',
        [seq, seq === null ? null : new Date(), e.eventId, e.eventType, e.ticketId, e.json],
      );
    const outboxRow = (e: ReturnType<typeof event>, parkedAt: Date | null) =>
      before.query(
        'INSERT INTO outbox (event_id, event_type, ticket_id, partition_no, payload, occurred_at, attempts, parked_at) VALUES (?, ?, ?, ?, ?, NOW(3), ?, ?)',
        [e.eventId, e.eventType, e.ticketId, e.ticketId % 8, e.json, parkedAt ? 10 : 0, parkedAt],
      );
    // Numbered and published long ago; numbered-to-be and waiting for RabbitMQ; parked; and one recorded before the
    // change feed existed (an outbox row only).
    await feedRow(published, 1);
    await before.query('UPDATE change_feed_sequencer SET last_seq = 1, last_sequenced_at = NOW(3) WHERE id = 1');
    await feedRow(pending, null);
    await outboxRow(pending, null);
    await feedRow(parked, null);
    await outboxRow(parked, new Date());
    await outboxRow(beforeTheFeed, null);
    // An endpoint with the delivery the release before wrote for the pending change.
    const secret = newSecret();
    const { insertId: webhookId } = await before.query(
      'INSERT INTO webhooks (url, secret, created_at, updated_at) VALUES (?, ?, NOW(3), NOW(3))',
      [receiver.url(), secret],
    );
    receiver.secrets = [secret];
    await before.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, type, ticket_id, payload, occurred_at, created_at, next_attempt_at)
       VALUES (?, ?, 'UPDATED', 'ticket.updated', ?, ?, NOW(3), NOW(3), NOW(3))`,
      [webhookId, pending.eventId, pending.ticketId, pending.json],
    );
    await before.destroy();

    app = await createTestApp({
      env: { DB_DATABASE: database, WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOKS_POLL_INTERVAL_MS: '100' },
    });
    const db = await connectToDatabase({ database });
    try {
      const status = async (e: { eventId: string }) =>
        (
          (await db.query('SELECT relay_status FROM change_log WHERE event_id = ?', [e.eventId])) as [
            Array<{ relay_status: string }>,
            unknown,
          ]
        )[0][0]?.relay_status;
      // What waited for RabbitMQ is published, in order, and marked so; the parked event is left for the operator.
      await consumer.waitFor(() => consumer.messages.length >= 2, 20_000);
      await waitUntil(
        async () => (await status(pending)) === 'published' && (await status(beforeTheFeed)) === 'published',
        20_000,
        'marked',
      );
      expect(consumer.messages.map((message) => message.properties.messageId)).toEqual([pending.eventId, beforeTheFeed.eventId]);
      expect(await status(published)).toBe('published');
      expect(await status(parked)).toBe('parked');

      // The feed numbers the changes in the order they were recorded, after those it had numbered.
      const http = request(app.getHttpServer());
      let items: Json[] = [];
      await waitUntil(
        async () => (items = (await http.get('/api/v2/changes').expect(200)).body.items).length === 4,
        20_000,
        'four changes in the feed',
      );
      expect(items.map((item) => item.eventId)).toEqual([published.eventId, pending.eventId, parked.eventId, beforeTheFeed.eventId]);

      // The pending delivery goes out; nothing recorded before the upgrade is delivered again from the log, and a
      // change made after it is.
      await waitUntil(() => receiver.accepted().length === 1, 20_000, 'the pending delivery');
      const ticket = (await createTicket(http)).body;
      await waitUntil(() => receiver.accepted().length === 2, 20_000, 'the delivery of a change after the upgrade');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(consumer.messages.map((message) => message.properties.messageId)).not.toContain(published.eventId);
      expect(receiver.received.map((r) => [r.json.data.eventId ?? null, r.json.data.ticketId])).toEqual([
        [pending.eventId, pending.ticketId],
        [expect.any(String), ticket.id],
      ]);
      expect(receiver.received.every((r) => r.verified[0] === true)).toBe(true);
    } finally {
      await db.end();
    }
  });
});
