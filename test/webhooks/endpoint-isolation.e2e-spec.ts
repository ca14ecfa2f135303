import type { Connection } from 'mysql2/promise';
import { waitUntil } from '../support/waits.js';
import { connectToDatabase, useOwnDatabase } from '../support/database.js';
import { useTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { deliveriesOf, registerWebhook } from '../support/webhook-endpoints.js';

const database = useOwnDatabase('webhook_isolation');

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

    it('does not hold a ticket write, which still records its delivery for that endpoint', async () => {
      const webhook = await registerWebhook(http(), receiver);
      // As an endpoint's update or disabling holds its row while it works (pausing a big backlog, say).
      await db.query('START TRANSACTION');
      await db.query("UPDATE webhooks SET description = 'being updated' WHERE id = ?", [webhook.id]);
      try {
        // Waiting for the endpoint's row, the write would pass its DB_QUERY_TIMEOUT_MS and be answered 503.
        const ticket = (await createTicket(http())).body;
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
      slow.holdUntil = new Promise<void>((resolve) => (release = resolve));
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
      for (let i = 0; i < backlog; i++) await createTicket(http());
      // The slow endpoint has its share of the slots hung, and the rest of its backlog is due.
      await waitUntil(() => slow.received.length === 4, 30_000, 'four hung attempts');
      const pending = (await deliveriesOf(http(), slowWebhook.id)).filter((d) => d.status === 'pending');
      expect(pending).toHaveLength(backlog);

      const promptWebhook = await registerWebhook(http(), prompt);
      const ticket = (await createTicket(http())).body;
      await waitUntil(() => prompt.accepted().some((r) => r.json.data.ticketId === ticket.id), 20_000, "the other endpoint's delivery");
      expect(prompt.received[0].verified).toEqual([true]);
      expect(slow.received).toHaveLength(4);

      release();
      await waitUntil(() => slow.accepted().length >= backlog + 1, 60_000, 'the backlog delivered once the receiver answers');
      await http().delete(`/api/v2/webhooks/${slowWebhook.id}`).expect(204);
      await http().delete(`/api/v2/webhooks/${promptWebhook.id}`).expect(204);
    }, 120_000);
  });
});
