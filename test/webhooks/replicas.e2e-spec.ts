import { deliveryReport, received as steps, writeTickets } from '../support/delivery.js';
import { waitUntil } from '../support/waits.js';
import { ServiceProcess } from '../support/service-process.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { useOwnDatabase } from '../support/database.js';

/**
 * On a database of its own: the replicas work on every due delivery of their database, and with this suite's retry
 * schedule the deliveries other suites of the run left pending (to endpoints whose receivers are gone) would take
 * their share of the slots, so the time to deliver this suite's events would depend on what ran before it.
 */
const database = useOwnDatabase('webhook_replicas');

/** Every replica delivers (B up to 16 at once); a claim lapses 3 s after a replica dies. */
const ENV = {
  DB_DATABASE: database,
  WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOKS_POLL_INTERVAL_MS: '100',
  WEBHOOKS_TIMEOUT_MS: '2000',
  WEBHOOKS_LEASE_TTL_MS: '3000',
  WEBHOOKS_CONCURRENCY: '16',
  WEBHOOKS_RETRY_SCHEDULE: Array(20).fill('1s').join(','),
  MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE: 'health,info,prometheus',
};

async function successes(service: ServiceProcess): Promise<number> {
  const text = await (await fetch(`${service.url}/actuator/prometheus`, { signal: AbortSignal.timeout(5_000) })).text();
  return Number(/^webhooks_deliveries_total\{outcome="succeeded"[^}]*\} (\S+)$/m.exec(text)?.[1] ?? 0);
}

describe('Webhooks across replicas', () => {
  let a: ServiceProcess;
  let b: ServiceProcess;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // Answers take a moment, so that the replica killed below has deliveries in flight.
    receiver = await WebhookReceiver.start();
    receiver.delayMs = 100;
    // One after the other: the first applies the migrations.
    // A's few slots fill up with the slow answers, so that B surely has work in flight when it is killed.
    a = await ServiceProcess.start({ ...ENV, WEBHOOKS_CONCURRENCY: '4' });
    b = await ServiceProcess.start(ENV);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await receiver?.stop();
  });

  it('shares the deliveries; when one replica is SIGKILLed mid-delivery nothing is lost, order holds, and only in-flight ones repeat', async () => {
    const created = await fetch(`${a.url}/api/v2/webhooks`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: receiver.url(), eventTypes: ['CREATED', 'UPDATED'] }),
    });
    expect(created.status).toBe(201);
    const webhook = (await created.json()) as { id: number; secret: string };
    receiver.secrets = [webhook.secret];

    const writes = writeTickets([a], 20, 15);
    await waitUntil(
      async () => receiver.received.length >= 80 && (await successes(a)) > 0 && (await successes(b)) > 0,
      120_000,
      'both replicas delivering',
    );
    const beforeKill = { a: await successes(a), b: await successes(b) };
    b.kill('SIGKILL');
    expect(await b.exited).toBeNull();
    const expected = await writes;

    const total = [...expected.values()].reduce((sum, n) => sum + n, 0);
    const ours = () => receiver.accepted().filter((r) => expected.has(r.json.data.ticketId));
    await waitUntil(() => new Set(ours().map((r) => r.json.data.eventId)).size >= total, 120_000, `${total} distinct deliveries`);

    const report = deliveryReport(steps(ours().map((r) => r.json.data)), expected);
    // Reported, not only asserted: how many a receiver saw twice because they were in flight at the SIGKILL.
    console.log(
      `webhooks across replicas: ${total} events, before the kill a=${beforeKill.a} b=${beforeKill.b}, report ${JSON.stringify(report)}`,
    );
    expect(beforeKill.a).toBeGreaterThan(0);
    expect(beforeKill.b).toBeGreaterThan(0);
    expect(report.lost).toBe(0);
    expect(report.outOfOrder).toEqual([]);
    expect(report.duplicates).toBeLessThanOrEqual(Number(ENV.WEBHOOKS_CONCURRENCY));
    expect(receiver.received.every((r) => r.verified[0])).toBe(true);
    await fetch(`${a.url}/api/v2/webhooks/${webhook.id}`, { method: 'DELETE' });
  }, 300_000);
});
