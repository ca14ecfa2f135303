// `npm run bench:soak`: the built service (dist/main.js) under 2 minutes of mixed load (reads, lists, creates,
// updates) on its own database and broker objects. Reports errors (must be 0), resident memory at start, after
// warm-up and at the end (it must not keep growing after warm-up), and the event backlog when the load stops.
// Options: --duration=<s> (default 120), --connections=<n> (default 32), --tickets=<n> seeded (default 10000).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import amqp from 'amqplib';
import autocannon from 'autocannon';
import { assertPortFree, startProcess } from './process.mjs';
import { adminConnection, dropDatabases, seedTickets } from './seed.mjs';
import { waitingForBroker } from './outbox.mjs';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const DURATION_S = arg('duration', 120);
const CONNECTIONS = arg('connections', 32);
const SEEDED = arg('tickets', 10_000);
const WARMUP_S = Math.min(20, DURATION_S / 4);
const SAMPLE_EVERY_MS = 5_000;

const DB = 'tickets_soak';
const BROKER = { RABBITMQ_EXCHANGE: 'ticket.soak.exchange', RABBITMQ_QUEUE: 'ticket.soak.queue', RABBITMQ_ROUTING_KEY: 'ticket.soak' };
const PORT = 18090;
const root = fileURLToPath(new URL('..', import.meta.url));
const JSON_HEADERS = { 'content-type': 'application/json' };

const body = (i, status) =>
  JSON.stringify({
    title: `Soak ticket ${i}`,
    description: 'Keeps the service busy.',
    status,
    priority: 'MEDIUM',
    requesterEmail: `soak${i % 200}@example.com`,
  });
const randomId = () => 1 + Math.floor(Math.random() * SEEDED);

/** 60 % reads by id, 15 % filtered lists, 15 % creates, 10 % full updates (half of them resolving). */
function mixedRequest(counts) {
  return {
    setupRequest: (req, context) => {
      const dice = Math.random();
      const i = counts.requests++;
      context.write = dice >= 0.75;
      if (dice < 0.6) return { ...req, method: 'GET', path: `/api/tickets/${randomId()}`, headers: {}, body: undefined };
      if (dice < 0.75)
        return { ...req, method: 'GET', path: `/api/tickets?requesterEmail=user${i % 500}@example.com`, headers: {}, body: undefined };
      if (dice < 0.9) return { ...req, method: 'POST', path: '/api/tickets', headers: JSON_HEADERS, body: body(i, 'OPEN') };
      return {
        ...req,
        method: 'PUT',
        path: `/api/tickets/${randomId()}`,
        headers: JSON_HEADERS,
        body: body(i, i % 2 ? 'RESOLVED' : 'IN_PROGRESS'),
      };
    },
    onResponse: (status, _body, context) => {
      if (context.write && status < 300) counts.writesAcknowledged++;
    },
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function rssMb(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024);
}

async function main() {
  await assertPortFree(PORT);
  const admin = await adminConnection();
  await dropDatabases(admin, [DB]);
  const broker = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
  const channel = await broker.createChannel();
  const service = await startProcess('service', ['dist/main.js'], {
    cwd: root,
    port: PORT,
    env: { DB_DATABASE: DB, LOG_LEVEL: 'warn', ...BROKER },
  });
  try {
    await seedTickets(admin, DB, SEEDED);
    await channel.assertQueue(BROKER.RABBITMQ_QUEUE, { durable: true });
    await channel.purgeQueue(BROKER.RABBITMQ_QUEUE);
    const samples = [{ s: 0, rssMb: await rssMb(service.pid) }];
    const started = Date.now();
    const sampler = setInterval(
      async () => samples.push({ s: Math.round((Date.now() - started) / 1000), rssMb: await rssMb(service.pid) }),
      SAMPLE_EVERY_MS,
    );
    const counts = { requests: 0, writesAcknowledged: 0 };
    console.log(`Soak: ${DURATION_S} s of mixed load over ${CONNECTIONS} connections on ${SEEDED} seeded tickets...`);
    const result = await autocannon({ url: service.url, connections: CONNECTIONS, duration: DURATION_S, requests: [mixedRequest(counts)] });
    clearInterval(sampler);
    samples.push({ s: Math.round((Date.now() - started) / 1000), rssMb: await rssMb(service.pid) });

    const backlog = await waitingForBroker(admin, DB);
    const drainStarted = Date.now();
    let pending = backlog;
    while (pending > 0 && Date.now() - drainStarted < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      pending = await waitingForBroker(admin, DB);
    }
    const { messageCount } = await channel.checkQueue(BROKER.RABBITMQ_QUEUE);

    const warm = samples.find((sample) => sample.s >= WARMUP_S) ?? samples[0];
    const end = samples.at(-1);
    const afterWarmup = samples.filter((sample) => sample.s >= WARMUP_S).map((sample) => sample.rssMb);
    // GC makes single samples swing by tens of MiB: growth is judged on the medians of the first and last third.
    const third = Math.max(1, Math.floor(afterWarmup.length / 3));
    const report = {
      durationS: DURATION_S,
      requests: result.requests.total,
      rps: Math.round(result.requests.total / result.duration),
      latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
      errors: result.errors + result.timeouts + result.non2xx,
      rssMb: {
        start: samples[0].rssMb,
        afterWarmup: warm.rssMb,
        end: end.rssMb,
        minAfterWarmup: Math.min(...afterWarmup),
        maxAfterWarmup: Math.max(...afterWarmup),
      },
      rssMedianMb: { firstThirdAfterWarmup: median(afterWarmup.slice(0, third)), lastThird: median(afterWarmup.slice(-third)) },
      events: {
        writesAcknowledged: counts.writesAcknowledged,
        backlogWhenLoadStopped: Number(backlog),
        backlogAfterDrain: pending,
        drainedInMs: Date.now() - drainStarted,
        inQueue: messageCount,
      },
    };
    console.log(JSON.stringify(report, null, 2));
    console.log(`RSS samples (s: MiB): ${samples.map((sample) => `${sample.s}: ${sample.rssMb}`).join(', ')}`);
    const { events } = report;
    if (report.errors > 0 || events.backlogAfterDrain > 0 || events.inQueue < events.writesAcknowledged) process.exitCode = 1;
  } finally {
    await service.stop();
    await dropDatabases(admin, [DB]);
    await admin.end();
    await channel.deleteQueue(BROKER.RABBITMQ_QUEUE);
    await channel.deleteExchange(BROKER.RABBITMQ_EXCHANGE);
    await broker.close();
  }
}

main().catch((error) => {
  console.error(`Soak failed: ${error.stack ?? error}`);
  process.exitCode = 1;
});
