import { waitUntil } from '../support/waits.js';
import { parseScrape, valueOf } from '../support/prometheus-scrape.js';
import { useTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { useOwnDatabase } from '../support/database.js';

/**
 * On a database of its own: webhooks_pending counts every pending delivery of the database, and the dispatcher works
 * on all of them, so deliveries other suites of the run left pending would change both the count and the wait.
 */
const database = useOwnDatabase('webhook_metrics');

describe('Webhook metrics', () => {
  const testApp = useTestApp({
    env: {
      DB_DATABASE: database,
      WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOKS_POLL_INTERVAL_MS: '100',
      WEBHOOKS_RETRY_SCHEDULE: Array(20).fill('1s').join(','),
      MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE: 'health,info,prometheus',
    },
  });
  let receiver: WebhookReceiver;
  beforeAll(async () => (receiver = await WebhookReceiver.start()));
  afterAll(async () => {
    await receiver.stop();
  });
  const scrape = async () => parseScrape((await testApp.http.get('/actuator/prometheus').expect(200)).text);

  it('counts attempts by outcome, times the lag of successes and gauges what is pending', async () => {
    // The receiver fails until the delivery has been seen pending.
    let failing = true;
    receiver.respond = () => ({ status: failing ? 500 : 204 });
    const webhook = (await testApp.http.post('/api/v2/webhooks').send({ url: receiver.url() }).expect(201)).body;
    await createTicket(testApp.http);
    await waitUntil(
      async () => valueOf(await scrape(), 'webhooks_pending') >= 1 && receiver.received.length >= 1,
      30_000,
      'a pending delivery',
    );
    failing = false;
    await waitUntil(() => receiver.accepted().length >= 1, 60_000, 'the retried delivery');
    await waitUntil(async () => valueOf(await scrape(), 'webhooks_deliveries_total', { outcome: 'succeeded' }) >= 1, 10_000, 'the count');
    const after = await scrape();
    expect(valueOf(after, 'webhooks_deliveries_total', { outcome: 'retrying' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(after, 'webhooks_delivery_lag_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(valueOf(after, 'webhooks_delivery_lag_seconds_sum')).toBeGreaterThan(0);
    expect(after.get('webhooks_pending')?.type).toBe('GAUGE');
    await testApp.http.delete(`/api/v2/webhooks/${webhook.id}`).expect(204);
  }, 120_000);

  it('counts an attempt whose endpoint was deleted while it ran as endpoint_deleted, not as a lost lease', async () => {
    const before = await scrape();
    const count = (scraped: typeof before, outcome: string) => valueOf(scraped, 'webhooks_deliveries_total', { outcome }) || 0;
    let release!: () => void;
    receiver.holdUntil = new Promise<void>((resolve) => (release = resolve));
    const held = receiver.received.length;
    const webhook = (await testApp.http.post('/api/v2/webhooks').send({ url: receiver.url() }).expect(201)).body;
    await createTicket(testApp.http);
    await waitUntil(() => receiver.received.length > held, 30_000, 'the attempt to arrive');
    await testApp.http.delete(`/api/v2/webhooks/${webhook.id}`).expect(204);
    receiver.holdUntil = undefined;
    release();
    await waitUntil(async () => count(await scrape(), 'endpoint_deleted') === count(before, 'endpoint_deleted') + 1, 10_000, 'the count');
    expect(count(await scrape(), 'lease_lost')).toBe(count(before, 'lease_lost'));
  });
});
