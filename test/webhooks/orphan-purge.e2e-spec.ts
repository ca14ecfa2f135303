import { randomUUID } from 'node:crypto';
import type { Connection } from 'mysql2/promise';
import { connectToDatabase } from '../support/database.js';
import { waitUntil } from '../support/waits.js';
import { useTestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

type Json = Record<string, any>;

describe('The dispatcher purges pending deliveries of deleted endpoints', () => {
  const testApp = useTestApp({
    env: { WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOKS_POLL_INTERVAL_MS: '100', WEBHOOKS_PURGE_INTERVAL_MS: '1000' },
  });
  const http = () => testApp.http;
  let receiver: WebhookReceiver;
  let db: Connection;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    db = await connectToDatabase();
  });
  afterAll(async () => {
    await db.end();
    await receiver.stop();
  });

  const register = async (): Promise<Json> => (await http().post('/api/v2/webhooks').send({ url: receiver.url() }).expect(201)).body;

  /** A pending delivery as a ticket write records it, due in `dueInSeconds`. */
  const recordDelivery = async (webhookId: number, dueInSeconds: number): Promise<number> => {
    const eventId = randomUUID();
    const payload = JSON.stringify({ eventId, eventType: 'UPDATED', occurredAt: new Date().toISOString(), ticketId: 1 });
    const [result] = (await db.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, type, ticket_id, payload, occurred_at, created_at, next_attempt_at)
       VALUES (?, ?, 'UPDATED', 'ticket.updated', 1, ?, NOW(3), NOW(3), NOW(3) + INTERVAL ? SECOND)`,
      [webhookId, eventId, payload, dueInSeconds],
    )) as unknown as [{ insertId: number }];
    return result.insertId;
  };
  const status = async (deliveryId: number): Promise<string | undefined> => {
    const [rows] = (await db.query('SELECT status FROM webhook_deliveries WHERE id = ?', [deliveryId])) as unknown as [
      Array<{ status: string }>,
    ];
    return rows[0]?.status;
  };

  it("removes a delivery a write recorded for an endpoint being deleted, and keeps a live endpoint's pending ones", async () => {
    const live = await register();
    const deleted = await register();
    await http().delete(`/api/v2/webhooks/${deleted.id}`).expect(204);
    // One transaction, so that the purge (every second) cannot take the orphan before it has been seen pending: on a
    // loaded machine a second can pass between the insert and the check.
    await db.beginTransaction();
    // What a write that read the endpoint just before its delete commits after it (no foreign key stops it).
    const orphan = await recordDelivery(deleted.id, 0);
    // A live endpoint's delivery waiting for its next attempt.
    const waiting = await recordDelivery(live.id, 3_600);
    expect(await status(orphan)).toBe('pending');
    await db.commit();

    await waitUntil(async () => (await status(orphan)) === undefined, 20_000, 'the purge of the orphan delivery');
    expect(await status(waiting)).toBe('pending');
    const { items } = (await http().get(`/api/v2/webhooks/${live.id}/deliveries`).expect(200)).body as { items: Json[] };
    expect(items.map((delivery) => delivery.id)).toEqual([waiting]);
    await http().delete(`/api/v2/webhooks/${live.id}`).expect(204);
  });
});
