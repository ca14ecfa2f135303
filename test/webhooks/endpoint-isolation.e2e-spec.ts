import type { Connection } from 'mysql2/promise';
import { waitUntil } from '../support/waits.js';
import { connectToDatabase, useOwnDatabase } from '../support/database.js';
import { useTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { deliveriesOf, registerWebhook } from '../support/webhook-endpoints.js';

const database = useOwnDatabase('webhook_isolation');
const crowded = useOwnDatabase('webhook_crowd');
const backedOff = useOwnDatabase('webhook_back_off');

describe('One endpoint holds up neither ticket writes nor other endpoints', () => {
  describe('an endpoint update held open', () => {
    const testApp = useTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOKS_POLL_INTERVAL_MS: '100' } });
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

    it('holds up neither a ticket write nor the delivery of its change to that endpoint', async () => {
      const webhook = await registerWebhook(http(), receiver);
      // As an endpoint's update or disabling holds its row while it works (pausing a big backlog, say).
      await db.query('START TRANSACTION');
      await db.query("UPDATE webhooks SET description = 'being updated' WHERE id = ?", [webhook.id]);
      try {
        // Waiting for the endpoint's row, the write would pass its DB_QUERY_TIMEOUT_MS and be answered 503.
        const ticket = (await createTicket(http())).body;
        await waitUntil(async () => (await deliveriesOf(http(), webhook.id)).some((d) => d.ticketId === ticket.id), 10_000, 'its delivery');
        expect((await deliveriesOf(http(), webhook.id)).map((d) => d.ticketId)).toEqual([ticket.id]);
        await waitUntil(() => receiver.accepted().some((r) => r.json.data.ticketId === ticket.id), 30_000, 'the delivery');
      } finally {
        await db.query('ROLLBACK');
      }
      await http().delete(`/api/v2/webhooks/${webhook.id}`).expect(204);
    }, 60_000);
  });

  describe('an endpoint with a long backlog and a receiver that hangs', () => {
    let release = () => {};
    // Before the app closes (hooks of one block run in the order declared or the reverse: one of the two is first).
    afterAll(() => release());
    // On a database of its own: the dispatcher works on every due delivery of its database, and endpoints other
    // suites of the run left behind would take slots of their own. Eight slots, at most four to one endpoint; the
    // hung attempts last beyond the test's waits.
    const testApp = useTestApp({
      env: {
        DB_DATABASE: database,
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOKS_POLL_INTERVAL_MS: '100',
        WEBHOOKS_CONCURRENCY: '8',
        WEBHOOKS_TIMEOUT_MS: '60000',
        WEBHOOKS_LEASE_TTL_MS: '70000',
      },
    });
    const http = () => testApp.http;
    let slow: WebhookReceiver;
    let prompt: WebhookReceiver;
    beforeAll(async () => {
      slow = await WebhookReceiver.start();
      prompt = await WebhookReceiver.start();
    });
    afterAll(async () => {
      release();
      await slow.stop();
      await prompt.stop();
    });

    it("does not keep another endpoint's deliveries waiting", async () => {
      const backlog = 30;
      const slowWebhook = await registerWebhook(http(), slow);
      // The endpoint answers once (an endpoint that has answered may take up to half the slots), then hangs.
      const answered = (await createTicket(http())).body;
      await waitUntil(() => slow.accepted().some((r) => r.json.data.ticketId === answered.id), 30_000, 'the first delivery');
      slow.holdUntil = new Promise<void>((resolve) => (release = resolve));
      for (let i = 0; i < backlog; i++) await createTicket(http());
      // The slow endpoint has its share of the slots hung, and the rest of its backlog is due.
      await waitUntil(() => slow.received.length === 5, 30_000, 'four hung attempts');
      // Its deliveries are made from the change log as the changes are numbered, each write's a moment after its commit.
      const pending = async () => (await deliveriesOf(http(), slowWebhook.id)).filter((d) => d.status === 'pending').length;
      await waitUntil(async () => (await pending()) === backlog, 10_000, 'the backlog pending');

      const promptWebhook = await registerWebhook(http(), prompt);
      const ticket = (await createTicket(http())).body;
      await waitUntil(() => prompt.accepted().some((r) => r.json.data.ticketId === ticket.id), 20_000, "the other endpoint's delivery");
      expect(prompt.received[0].verified).toEqual([true]);
      expect(slow.received).toHaveLength(5);

      release();
      await waitUntil(() => slow.accepted().length >= backlog + 2, 60_000, 'the backlog delivered once the receiver answers');
      await http().delete(`/api/v2/webhooks/${slowWebhook.id}`).expect(204);
      await http().delete(`/api/v2/webhooks/${promptWebhook.id}`).expect(204);
    }, 120_000);
  });
  describe('a thousand endpoints whose receiver hangs', () => {
    let release = () => {};
    afterAll(() => release());
    // Sixteen slots; an attempt that gets no answer ends after 3 s.
    const testApp = useTestApp({
      env: {
        DB_DATABASE: crowded,
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOKS_POLL_INTERVAL_MS: '100',
        WEBHOOKS_CONCURRENCY: '16',
        WEBHOOKS_TIMEOUT_MS: '3000',
        WEBHOOKS_LEASE_TTL_MS: '5000',
      },
    });
    const http = () => testApp.http;
    let hanging: WebhookReceiver;
    let healthy: WebhookReceiver;
    beforeAll(async () => {
      hanging = await WebhookReceiver.start();
      hanging.holdUntil = new Promise<void>((resolve) => (release = resolve));
      healthy = await WebhookReceiver.start();
    });
    afterAll(async () => {
      release();
      await hanging.stop();
      await healthy.stop();
    });

    it("delivers a healthy endpoint's events within seconds of their write, however many receivers hang", async () => {
      await registerWebhook(http(), healthy);
      const first = (await createTicket(http())).body;
      await waitUntil(() => healthy.accepted().some((r) => r.json.data.ticketId === first.id), 10_000, 'the first delivery');
      for (let i = 0; i < 1_000; i += 20) {
        await Promise.all(
          Array.from({ length: 20 }, (_, j) =>
            http()
              .post('/api/v2/webhooks')
              .send({ url: hanging.url(`/hook${i + j}`) })
              .expect(201),
          ),
        );
      }
      // Twenty writes: 20,000 deliveries to the hanging receiver, and every slot it may take hung.
      for (let i = 0; i < 20; i++) await createTicket(http());
      await waitUntil(() => hanging.received.length >= 8, 10_000, 'hung attempts');
      const written = Date.now();
      const ticket = (await createTicket(http())).body;
      await waitUntil(() => healthy.accepted().some((r) => r.json.data.ticketId === ticket.id), 5_000, "the healthy endpoint's delivery");
      expect(Date.now() - written).toBeLessThan(5_000);
      // An endpoint that has not answered yet has one attempt in flight at a time.
      const endpointsTried = new Set(hanging.received.map((r) => r.path));
      expect(hanging.received.length).toBe(endpointsTried.size);
    }, 90_000);
  });
  describe('an endpoint whose receiver never answers', () => {
    let release = () => {};
    afterAll(() => release());
    // An attempt that gets no answer ends after 1 s.
    const testApp = useTestApp({
      env: {
        DB_DATABASE: backedOff,
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOKS_POLL_INTERVAL_MS: '100',
        WEBHOOKS_CONCURRENCY: '8',
        WEBHOOKS_TIMEOUT_MS: '1000',
        WEBHOOKS_LEASE_TTL_MS: '2000',
      },
    });
    const http = () => testApp.http;
    let hanging: WebhookReceiver;
    beforeAll(async () => {
      hanging = await WebhookReceiver.start();
      hanging.holdUntil = new Promise<void>((resolve) => (release = resolve));
    });
    afterAll(async () => {
      release();
      await hanging.stop();
    });

    it('gets no attempt for 10 s after one timed out, though deliveries of other tickets are due', async () => {
      await registerWebhook(http(), hanging);
      for (let i = 0; i < 3; i++) await createTicket(http());
      await waitUntil(() => hanging.received.length === 1, 10_000, 'the first attempt');
      // Its timeout ends at 1 s; without the back-off the next due delivery would go out at once after it.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      expect(hanging.received).toHaveLength(1);
    }, 30_000);
  });
});
