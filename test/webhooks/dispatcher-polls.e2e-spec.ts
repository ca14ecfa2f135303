import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { setTimeout as sleep } from 'node:timers/promises';
import { useOwnDatabase } from '../support/database.js';
import { waitUntil } from '../support/waits.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { createTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { deliveriesOf, registerWebhook } from '../support/webhook-endpoints.js';
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

/**
 * Numbering wakes the dispatcher only for the endpoints that can take a delivery of a new change now, and that look
 * reads only them: an endpoint whose probe hangs costs the writes nothing, one that answers is served at once.
 */
const openDatabase = useOwnDatabase('dispatcher_open');

describe('Webhook dispatcher with an endpoint that hangs', () => {
  let proxy: TcpProxy;
  let app: INestApplication;
  let hanging: WebhookReceiver;
  let answering: WebhookReceiver;
  let release: () => void;

  beforeAll(async () => {
    proxy = await TcpProxy.start(Number(process.env.DB_PORT ?? 3306));
    hanging = await WebhookReceiver.start();
    hanging.holdUntil = new Promise<void>((resolve) => (release = resolve));
    answering = await WebhookReceiver.start();
    app = await createTestApp({
      env: {
        DB_PORT: String(proxy.port),
        DB_DATABASE: openDatabase,
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
        // Only commits, endpoint changes and ended attempts, not the timer, send the dispatcher to look.
        WEBHOOKS_POLL_INTERVAL_MS: '60000',
        // The probe hangs for the whole test: its timeout would end it and send a look at every endpoint.
        WEBHOOKS_TIMEOUT_MS: '300000',
        WEBHOOKS_LEASE_TTL_MS: '301000',
      },
    });
  });

  afterAll(async () => {
    release?.();
    await app?.close();
    await hanging.stop();
    await answering.stop();
    await proxy.stop();
  });

  /** Resolves once no look has gone out for `ms`: the looks an earlier step set off are over. */
  async function lookedLast(ms = 500): Promise<void> {
    const looks = proxy.countClientSends(LOOK);
    for (let seen = -1; seen !== looks();) {
      seen = looks();
      await sleep(ms);
    }
  }

  it('sends no look after writes while the only endpoint holds its probe, and looks only at the endpoint that answers', async () => {
    const http = request(app.getHttpServer());
    await registerWebhook(http, hanging);
    await createTicket(http);
    await waitUntil(() => hanging.received.length === 1, 10_000, 'the probe to the endpoint that hangs');
    // The look after the one that made the probe finds nothing more to do.
    await lookedLast();
    const looks = proxy.countClientSends(LOOK);
    for (let i = 0; i < 10; i++) await createTicket(http);
    await sleep(300);
    expect(looks()).toBe(0);

    const endpoint = await registerWebhook(http, answering);
    await createTicket(http);
    await waitUntil(() => answering.accepted().length === 1, 10_000, 'the first delivery to the endpoint that answers');
    // Its attempt's end, once recorded, sends one more look at every endpoint (it was not proven yet).
    await waitUntil(async () => (await deliveriesOf(http, endpoint.id))[0]?.status === 'succeeded', 10_000, 'the outcome recorded');
    await lookedLast();
    const allLooks = proxy.countClientSends(LOOK);
    const itsLooks = proxy.countClientSends(`w.id IN (${endpoint.id})`);
    for (let i = 0; i < 5; i++) await createTicket(http);
    await waitUntil(() => answering.accepted().length === 6, 10_000, 'the deliveries of the next five writes');
    expect(itsLooks()).toBeGreaterThan(0);
    expect(allLooks()).toBe(itsLooks());
    expect(hanging.received).toHaveLength(1);
  });
});
