import type { Connection } from 'mysql2/promise';
import { ChangeSequencer } from '../../src/changes/change-sequencer.js';
import { PENDING_PER_ENDPOINT } from '../../src/webhooks/webhook-dispatcher.js';
import { connectToDatabase, useOwnDatabase } from '../support/database.js';
import { parseScrape, valueOf } from '../support/prometheus-scrape.js';
import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest, createTicket } from '../support/ticket-factory.js';
import { waitUntil } from '../support/waits.js';
import { deliveriesOf, registerWebhook } from '../support/webhook-endpoints.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Webhooks read the change log (docs/architecture.md#the-change-log): a write records its change once, whatever
 * the number of endpoints; each endpoint follows the log from a cursor of its own, with a bounded number of delivery
 * rows; and the log keeps what an enabled endpoint or RabbitMQ has not had yet. On databases of their own: endpoints
 * other suites leave registered would take part.
 */
const quiet = useOwnDatabase('change_log_readers');
const capped = useOwnDatabase('change_log_capped');
const probed = useOwnDatabase('change_log_probed');

type Rows<T> = [T[], unknown];

describe('The change log and its readers', () => {
  describe('with a thousand endpoints, no dispatcher and no broker', () => {
    // WEBHOOKS_CONCURRENCY=0: this replica sends nothing, so no endpoint's cursor moves; RabbitMQ cannot be reached.
    const testApp = useTestApp({
      env: {
        DB_DATABASE: quiet,
        WEBHOOKS_CONCURRENCY: '0',
        RABBITMQ_URL: 'amqp://guest:guest@127.0.0.1:1',
        CHANGES_SEQUENCE_INTERVAL_MS: '20',
      },
    });
    let db: Connection;
    beforeAll(async () => {
      db = await connectToDatabase({ database: quiet });
      await db.query(
        `INSERT INTO webhooks (url, secret, created_at, updated_at)
         SELECT CONCAT('https://hooks.example.com/', seq), 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', NOW(3), NOW(3) FROM seq_1_to_1000`,
      );
      // Where the feed stands is read first, as the service reads it: an INSERT … SELECT would share-lock the sequencer's row.
      const [[sequencer]] = (await db.query('SELECT last_seq FROM change_feed_sequencer WHERE id = 1')) as Rows<{ last_seq: string }>;
      await db.query('INSERT INTO webhook_cursors (webhook_id, delivered_through, after_change_id) SELECT id, ?, 0 FROM webhooks', [
        sequencer.last_seq,
      ]);
    });
    afterAll(() => db.end());

    it('records a write as one change-log row and nothing for each endpoint', async () => {
      const ticket = (await createTicket(testApp.http)).body;
      await testApp.http
        .put(`/api/tickets/${ticket.id}`)
        .send(buildTicketRequest({ title: 'changed' }))
        .expect(200);
      const [changes] = (await db.query('SELECT event_type, relay_status FROM change_log WHERE ticket_id = ? ORDER BY id', [
        ticket.id,
      ])) as Rows<{
        event_type: string;
        relay_status: string;
      }>;
      expect(changes).toEqual([
        { event_type: 'CREATED', relay_status: 'pending' },
        { event_type: 'UPDATED', relay_status: 'pending' },
      ]);
      const [[{ deliveries }]] = (await db.query('SELECT COUNT(*) AS deliveries FROM webhook_deliveries')) as Rows<{ deliveries: number }>;
      expect(Number(deliveries)).toBe(0);
    });

    it('keeps the changes an enabled endpoint has not reached and those RabbitMQ has not had, past retention', async () => {
      const ticket = (await createTicket(testApp.http)).body;
      const sequencer = testApp.app.get(ChangeSequencer);
      await waitUntil(async () => {
        const [[row]] = (await db.query('SELECT seq FROM change_log WHERE ticket_id = ?', [ticket.id])) as Rows<{ seq: number | null }>;
        return row.seq !== null && sequencer.isSequencer();
      }, 20_000);
      const expire = () => db.query('UPDATE change_log SET sequenced_at = NOW(3) - INTERVAL 8 DAY WHERE seq IS NOT NULL');
      const kept = async () => Number(((await db.query('SELECT COUNT(*) AS n FROM change_log')) as Rows<{ n: number }>)[0][0].n);
      await expire();
      const all = await kept();

      // Nothing reached by every reader: nothing goes.
      expect(await sequencer.prune()).toBe(true);
      expect(await kept()).toBe(all);
      // RabbitMQ has them all now, but the endpoints have not reached them.
      await db.query("UPDATE change_log SET relay_status = 'published'");
      expect(await sequencer.prune()).toBe(true);
      expect(await kept()).toBe(all);
      // A disabled endpoint holds nothing back.
      await db.query('UPDATE webhooks SET enabled = 0');
      expect(await sequencer.prune()).toBe(true);
      expect(await kept()).toBe(0);

      // Enabled again, an endpoint goes on from the oldest change kept; deleted, its cursor goes with it.
      const cursorOf = async (id: number) =>
        (
          (await db.query('SELECT delivered_through FROM webhook_cursors WHERE webhook_id = ?', [id])) as Rows<{
            delivered_through: number;
          }>
        )[0][0]?.delivered_through;
      const [[{ id, prunedThrough }]] = (await db.query(
        'SELECT MIN(w.id) AS id, MIN(s.pruned_through) AS prunedThrough FROM webhooks w JOIN change_feed_sequencer s ON s.id = 1',
      )) as Rows<{ id: number; prunedThrough: number }>;
      expect(Number(await cursorOf(id))).toBeLessThan(Number(prunedThrough));
      await testApp.http.patch(`/api/v2/webhooks/${id}`).send({ enabled: true }).expect(200);
      expect(Number(await cursorOf(id))).toBe(Number(prunedThrough));
      await testApp.http.delete(`/api/v2/webhooks/${id}`).expect(204);
      expect(await cursorOf(id)).toBeUndefined();
    });
  });

  describe('an endpoint that stops answering', () => {
    let release = () => {};
    afterAll(() => release());
    const testApp = useTestApp({
      env: {
        DB_DATABASE: capped,
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOKS_POLL_INTERVAL_MS: '100',
        WEBHOOKS_TIMEOUT_MS: '60000',
        WEBHOOKS_LEASE_TTL_MS: '70000',
        MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE: 'health,prometheus',
      },
    });
    let receiver: WebhookReceiver;
    beforeAll(async () => (receiver = await WebhookReceiver.start()));
    afterAll(async () => {
      release();
      await receiver.stop();
    });
    const scrape = async () => parseScrape((await testApp.http.get('/actuator/prometheus').expect(200)).text);

    it(`holds ${PENDING_PER_ENDPOINT} pending deliveries at most, the rest waiting in the log, and gets every change once it answers`, async () => {
      const webhook = await registerWebhook(testApp.http, receiver);
      // It answers once (so it is proven), then holds every request.
      const tickets = [(await createTicket(testApp.http)).body.id as number];
      await waitUntil(() => receiver.accepted().length === 1, 10_000, 'the first delivery');
      receiver.holdUntil = new Promise<void>((resolve) => (release = resolve));
      const writes = PENDING_PER_ENDPOINT + 50;
      for (let i = 0; i < writes; i++) tickets.push((await createTicket(testApp.http)).body.id);

      const pending = async () => (await deliveriesOf(testApp.http, webhook.id)).filter((d) => d.status === 'pending').length;
      await waitUntil(async () => (await pending()) === PENDING_PER_ENDPOINT, 20_000, `${PENDING_PER_ENDPOINT} pending`);
      await waitUntil(async () => valueOf(await scrape(), 'webhooks_changes_behind') === 50, 10_000, 'the rest waiting in the log');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await pending()).toBe(PENDING_PER_ENDPOINT);

      release();
      const delivered = () => new Set(receiver.accepted().map((r) => r.json.data.ticketId));
      await waitUntil(() => delivered().size === writes + 1, 60_000, 'every change delivered');
      expect([...delivered()].sort((a, b) => a - b)).toEqual(tickets);
      await waitUntil(async () => valueOf(await scrape(), 'webhooks_changes_behind') === 0, 10_000, 'the endpoint caught up');
      await testApp.http.delete(`/api/v2/webhooks/${webhook.id}`).expect(204);
    }, 120_000);

    it('gets, once enabled again, the changes recorded while it was disabled, in order', async () => {
      receiver.received.length = 0;
      receiver.respond = () => ({ status: 204 });
      const webhook = await registerWebhook(testApp.http, receiver);
      await testApp.http.patch(`/api/v2/webhooks/${webhook.id}`).send({ enabled: false }).expect(200);
      const ticket = (await createTicket(testApp.http)).body;
      await testApp.http
        .put(`/api/tickets/${ticket.id}`)
        .send(buildTicketRequest({ title: 'while disabled' }))
        .expect(200);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.received).toHaveLength(0);

      await testApp.http.patch(`/api/v2/webhooks/${webhook.id}`).send({ enabled: true }).expect(200);
      await waitUntil(() => receiver.accepted().length === 2, 10_000, 'both changes');
      expect(receiver.received.every((r) => r.verified[0])).toBe(true);
      expect(receiver.received.map((r) => [r.json.type, r.json.data.ticketId])).toEqual([
        ['ticket.created', ticket.id],
        ['ticket.updated', ticket.id],
      ]);
    });
  });
  describe('an endpoint whose receiver refuses one ticket', () => {
    const testApp = useTestApp({
      env: {
        DB_DATABASE: probed,
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOKS_POLL_INTERVAL_MS: '100',
        WEBHOOKS_RETRY_SCHEDULE: '1h',
      },
    });
    let receiver: WebhookReceiver;
    beforeAll(async () => (receiver = await WebhookReceiver.start()));
    afterAll(() => receiver.stop());

    it("goes on with other tickets' changes while that ticket's delivery waits for its retry", async () => {
      receiver.respond = ({ body }) => ({ status: JSON.parse(body).data.ticket.title === 'refused' ? 400 : 204 });
      await registerWebhook(testApp.http, receiver);
      const refused = (await createTicket(testApp.http, { title: 'refused' })).body;
      await waitUntil(() => receiver.received.length === 1, 10_000, 'the refused attempt');
      // The endpoint's last attempt failed: it is not proven, its delivery waits an hour for its retry, and the
      // ticket's next change is made a delivery queued behind it.
      await testApp.http
        .put(`/api/tickets/${refused.id}`)
        .send(buildTicketRequest({ title: 'refused' }))
        .expect(200);
      const others: number[] = [];
      for (let i = 0; i < 3; i++) others.push((await createTicket(testApp.http)).body.id);
      await waitUntil(() => receiver.accepted().length === 3, 10_000, "the other tickets' deliveries");
      expect(receiver.accepted().map((r) => r.json.data.ticketId)).toEqual(others);
      expect(receiver.received).toHaveLength(4);
    });
  });
});
