import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { setTimeout as sleep } from 'node:timers/promises';
import { useOwnDatabase } from '../support/database.js';
import { waitUntil } from '../support/waits.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { createTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { registerWebhook } from '../support/webhook-endpoints.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * A service with no webhook endpoint pays nothing for webhooks on its writes: its commits do not send the dispatcher
 * to look for due deliveries, until an endpoint is enabled. The looks are counted on the way to the database (a
 * proxy), on a database of its own: endpoints other suites leave registered would be found.
 */
const database = useOwnDatabase('dispatcher_polls');
const LOOK = 'JOIN webhooks w ON w.enabled = 1';

describe('Webhook dispatcher without endpoints', () => {
  let proxy: TcpProxy;
  let app: INestApplication;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    proxy = await TcpProxy.start(Number(process.env.DB_PORT ?? 3306));
    receiver = await WebhookReceiver.start();
    const looked = proxy.untilClientSends(LOOK);
    app = await createTestApp({
      env: {
        DB_PORT: String(proxy.port),
        DB_DATABASE: database,
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
        // Only commits and endpoint changes, not the timer, send the dispatcher to look within this test.
        WEBHOOKS_POLL_INTERVAL_MS: '60000',
      },
    });
    await looked;
  });

  afterAll(async () => {
    await app?.close();
    await receiver.stop();
    await proxy.stop();
  });

  it('sends no look for due deliveries after writes while no endpoint is enabled, and looks again once one is', async () => {
    const http = request(app.getHttpServer());
    // The look at start-up found no endpoint.
    await sleep(200);
    const looks = proxy.countClientSends(LOOK);
    for (let i = 0; i < 10; i++) await createTicket(http);
    await sleep(300);
    expect(looks()).toBe(0);

    await registerWebhook(http, receiver);
    const ticket = (await createTicket(http)).body as { id: number };
    await waitUntil(() => receiver.accepted().length === 1, 10_000, 'the delivery of the write after the endpoint');
    expect(looks()).toBeGreaterThan(0);
    expect(receiver.accepted()[0].json.data.ticketId).toBe(ticket.id);
  });
});
