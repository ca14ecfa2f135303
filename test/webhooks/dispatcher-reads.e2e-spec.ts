import { randomUUID } from 'node:crypto';
import type { Connection } from 'mysql2/promise';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectToDatabase } from '../support/database.js';
import { waitUntil } from '../support/waits.js';
import { useTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { registerWebhook } from '../support/webhook-endpoints.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * What the dispatcher's looks read of an endpoint, with its timed poll minutes apart: only a write's numbering and the
 * API's kicks send it to look, so a look that misreads an endpoint leaves its delivery undelivered within the waits.
 */
describe("The webhook dispatcher's reads of an endpoint", () => {
  const testApp = useTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOKS_POLL_INTERVAL_MS: '60000' } });
  const http = () => testApp.http;
  let receiver: WebhookReceiver;
  let db: Connection;
  beforeAll(async () => {
    db = await connectToDatabase();
  });
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(() => receiver.stop());
  afterAll(() => db.end());

  it('finds a due delivery beside a paused one (pending, without a time)', async () => {
    const endpoint = await registerWebhook(http(), receiver);
    const delivery = (ticketId: number, due: string) => {
      const eventId = randomUUID();
      const payload = JSON.stringify({ eventId, eventType: 'UPDATED', occurredAt: new Date().toISOString(), ticketId });
      return db
        .query(
          `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, type, ticket_id, payload, occurred_at, created_at, next_attempt_at)
           VALUES (?, ?, 'UPDATED', 'ticket.updated', ?, ?, NOW(3), NOW(3), ${due})`,
          [endpoint.id, eventId, ticketId, payload],
        )
        .then(() => eventId);
    };
    await delivery(1, 'NULL');
    const due = await delivery(2, 'NOW(3)');
    // A replay of an empty window (a window ending now could copy the delivery just made): the kick that sends the
    // dispatcher to look at every endpoint.
    const nothing = '2000-01-01T00:00:00Z';
    const replay = await http().post(`/api/v2/webhooks/${endpoint.id}/replay`).query({ since: nothing, until: nothing }).expect(202);
    expect(replay.body).toEqual({ replayed: 0 });
    await waitUntil(() => receiver.accepted().length === 1, 10_000, 'the due delivery');
    expect(receiver.accepted()[0].headers['webhook-id']).toBe(due);
    await http().delete(`/api/v2/webhooks/${endpoint.id}`).expect(204);
  });

  it('keeps making the deliveries of an endpoint after its cursor passed changes of kinds it does not take', async () => {
    const endpoint = await registerWebhook(http(), receiver, { eventTypes: ['DELETED'] });
    /** Whether the endpoint's cursor is past the ticket's changes (false until they are numbered). */
    const passed = async (ticketId: number) => {
      const [rows] = (await db.query(
        `SELECT c.delivered_through >= (SELECT MAX(seq) FROM change_log WHERE ticket_id = ?) AS passed
         FROM webhook_cursors c WHERE c.webhook_id = ?`,
        [ticketId, endpoint.id],
      )) as unknown as [Array<{ passed: number | null }>];
      return Number(rows[0]?.passed) === 1;
    };
    const first = (await createTicket(http())).body as { id: number };
    await waitUntil(() => passed(first.id), 10_000, 'the cursor past the first create');
    // The look that read every endpoint after that one is over; the next create is passed by a look woken by numbering.
    await sleep(300);
    const second = (await createTicket(http())).body as { id: number };
    await waitUntil(() => passed(second.id), 10_000, 'the cursor past the second create');
    await http().delete(`/api/tickets/${second.id}`).expect(204);
    await waitUntil(() => receiver.accepted().length === 1, 10_000, 'the delivery of the delete');
    expect(receiver.accepted()[0].json.data.ticketId).toBe(second.id);
    expect(receiver.accepted()[0].json.type).toBe('ticket.deleted');
    await http().delete(`/api/v2/webhooks/${endpoint.id}`).expect(204);
  });
});
