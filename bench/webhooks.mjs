// The webhook benchmark (npm run build && node bench/webhooks.mjs): delivery lag at a steady write rate. One
// service process (port 18113, database tickets_bench_webhooks) with one endpoint subscribed to every kind, a
// local node:http receiver that answers 204 and records, per delivery, the time from the change (the body's
// `timestamp`, the event's occurredAt, taken just before the commit) to its arrival. Writes are PATCHes of 200
// tickets at a fixed rate (open loop: each tick sends its share whatever the ones before it are doing).
// Options: --rate=<writes/s> (default 500), --seconds=<n> (default 20), --tickets=<n> (default 200: each ticket's
// events go out one after the other, so the rate per ticket is --rate / --tickets), --verify (check every signature with
// standardwebhooks in the receiver, which then shares the CPU with the service), --concurrency=<n>
// (WEBHOOKS_CONCURRENCY; default the service's).
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { removeBrokerObjects } from './broker.mjs';
import { assertPortFree, startProcess } from './process.mjs';
import { adminConnection, dropDatabases } from './seed.mjs';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const RATE = arg('rate', 500);
const SECONDS = arg('seconds', 20);
const VERIFY = process.argv.includes('--verify');
const TICKETS = arg('tickets', 200);
/** --service=<main.js>: another build (e.g. an earlier commit's, in .earlier-build/). */
const SERVICE_MAIN = process.argv.find((a) => a.startsWith('--service='))?.split('=')[1] ?? 'dist/main.js';
const TICK_MS = 10;
const DB = 'tickets_bench_webhooks';
const BROKER = { RABBITMQ_EXCHANGE: 'ticket.bench.webhooks.exchange', RABBITMQ_QUEUE: 'ticket.bench.webhooks.queue' };
const PORT = 18113;
const root = fileURLToPath(new URL('..', import.meta.url));
const CONCURRENCY = process.argv.find((a) => a.startsWith('--concurrency='))?.split('=')[1];
const env = {
  DB_DATABASE: DB,
  ...BROKER,
  WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
  LOG_LEVEL: 'warn',
  ...(CONCURRENCY && { WEBHOOKS_CONCURRENCY: CONCURRENCY }),
};

async function main() {
  await assertPortFree(PORT);
  const admin = await adminConnection();
  await dropDatabases(admin, [DB]);
  const receiver = await startReceiver();
  const service = await startProcess('service', [SERVICE_MAIN], { cwd: root, port: PORT, env });
  try {
    const webhook = await json(`${service.url}/api/v2/webhooks`, 'POST', { url: `http://127.0.0.1:${receiver.port}/hook` });
    receiver.verifier = VERIFY ? new Webhook(webhook.secret) : undefined;
    const ids = [];
    for (let i = 0; i < TICKETS; i++) ids.push((await json(`${service.url}/api/tickets`, 'POST', ticket(`bench ${i}`))).id);
    await until(() => receiver.lags.length >= TICKETS);
    receiver.lags.length = 0;

    const { sent, failed, achieved } = await drive(service.url, ids);
    await until(() => receiver.lags.length >= sent - failed, 60_000);
    const lags = [...receiver.lags].sort((a, b) => a - b);
    const at = (q) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))].toFixed(1);
    console.log(
      `\nWebhook delivery lag: ${sent} PATCHes over ${SECONDS} s (${achieved} writes/s achieved, ${failed} failed), one endpoint`,
    );
    console.log(`${VERIFY ? 'every signature verified by the receiver' : 'signatures not verified (--verify to)'}; ${receiver.bad} bad\n`);
    console.log('| deliveries | p50 | p90 | p99 | max |\n|---|---|---|---|---|');
    console.log(`| ${lags.length} | ${at(0.5)} ms | ${at(0.9)} ms | ${at(0.99)} ms | ${lags.at(-1).toFixed(1)} ms |`);
  } finally {
    await service.stop();
    receiver.server.close();
    await dropDatabases(admin, [DB]);
    await admin.end();
    await removeBrokerObjects(BROKER);
  }
}

/** RATE PATCHes a second for SECONDS, spread over the tickets; answers how many were sent and failed. */
async function drive(url, ids) {
  const perTick = (RATE * TICK_MS) / 1000;
  const inFlight = new Set();
  let sent = 0;
  let failed = 0;
  let owed = 0;
  const started = performance.now();
  while (performance.now() - started < SECONDS * 1000) {
    owed += perTick;
    for (; owed >= 1; owed--) {
      const id = ids[sent % ids.length];
      const request = json(`${url}/api/tickets/${id}`, 'PATCH', { assignedTo: `agent-${sent % 50}` })
        .catch(() => failed++)
        .finally(() => inFlight.delete(request));
      inFlight.add(request);
      sent++;
    }
    const next = started + ((performance.now() - started) / TICK_MS + 1) * TICK_MS;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
  }
  await Promise.all(inFlight);
  return { sent, failed, achieved: Math.round(sent / ((performance.now() - started) / 1000)) };
}

async function startReceiver() {
  const receiver = { lags: [], bad: 0, verifier: undefined };
  receiver.server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const arrived = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        if (receiver.verifier) receiver.verifier.verify(body, request.headers);
        receiver.lags.push(arrived - Date.parse(JSON.parse(body).timestamp));
      } catch {
        receiver.bad++;
      }
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  receiver.port = receiver.server.address().port;
  return receiver;
}

function ticket(title) {
  return { title, description: 'webhook benchmark', status: 'OPEN', priority: 'LOW', requesterEmail: 'bench@example.com' };
}

async function json(url, method, body) {
  const response = await fetch(url, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status}`);
  return response.json();
}

async function until(condition, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

await main();
