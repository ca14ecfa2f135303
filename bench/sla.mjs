// The SLA benchmark (npm run bench:sla): how soon a breach is published after its due time, and what the SLA list
// queries cost on a large table. Part 1 starts the built service with a policy whose HIGH first response is due 5 s
// after the create, creates --breaches tickets (default 50) 40 ms apart and measures, per breach, the time from its
// breachTime to its SLA_BREACHED event arriving at a consumer of the exchange. Part 2 fills --tickets rows (default
// 1,000,000) of which --running (default 100,000) have a running clock (one in three of those breached) with
// INSERT … SELECT, and times --requests (default 200) v2 pages of 50 per query, one after another.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import amqp from 'amqplib';
import { removeBrokerObjects } from './broker.mjs';
import { assertPortFree, startProcess } from './process.mjs';
import { adminConnection, dropDatabases } from './seed.mjs';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const BREACHES = arg('breaches', 50);
const TICKETS = arg('tickets', 1_000_000);
const RUNNING = arg('running', 100_000);
const REQUESTS = arg('requests', 200);
const DB = 'tickets_bench_sla';
const BROKER = {
  RABBITMQ_EXCHANGE: 'ticket.bench.sla.exchange',
  RABBITMQ_QUEUE: 'ticket.bench.sla.queue',
  RABBITMQ_ROUTING_KEY: 'ticket.bench.sla',
};
const PORT = 18095;
const root = fileURLToPath(new URL('..', import.meta.url));

function policyFile() {
  const file = join(mkdtempSync(join(tmpdir(), 'bench-sla-')), 'policy.yaml');
  const line = (priority, firstResponse) => `  ${priority}: { calendar: always, firstResponse: ${firstResponse}, resolution: PT100H }`;
  writeFileSync(
    file,
    [
      'calendars:',
      '  always: 24x7',
      'priorities:',
      line('HIGH', 'PT5S'),
      line('LOW', 'PT100H'),
      line('MEDIUM', 'PT100H'),
      line('CRITICAL', 'PT100H'),
      '',
    ].join('\n'),
  );
  return file;
}

const env = {
  DB_DATABASE: DB,
  ...BROKER,
  SLA_ENABLED: 'true',
  SLA_POLICY_FILE: policyFile(),
  LOG_LEVEL: 'warn',
  DB_QUERY_TIMEOUT_MS: '30000',
};

async function main() {
  await assertPortFree(PORT);
  const admin = await adminConnection();
  try {
    await dropDatabases(admin, [DB]);
    const latency = await detectorLatency();
    console.log(`\nSLA detector: ${BREACHES} breaches, due time → SLA_BREACHED at a consumer (poll every 500 ms)\n`);
    console.log(`| p50 | p95 | max |\n|---|---|---|\n| ${latency.p50} ms | ${latency.p95} ms | ${latency.max} ms |`);
    const pages = await listPages(admin);
    console.log(
      `\nSLA list pages (v2, limit=50, total=false): ${TICKETS} tickets, ${RUNNING} with a running clock, ${REQUESTS} requests each\n`,
    );
    console.log('| query | p50 | p95 |\n|---|---|---|');
    for (const row of pages) console.log(`| \`${row.query}\` | ${row.p50} ms | ${row.p95} ms |`);
  } finally {
    await dropDatabases(admin, [DB]);
    await admin.end();
    await removeBrokerObjects(BROKER);
  }
}

async function detectorLatency() {
  const arrivals = new Map();
  const consumer = await startConsumer(
    (event) => event.eventType === 'SLA_BREACHED' && arrivals.set(event.ticketId, { at: Date.now(), event }),
  );
  const service = await startProcess('service', ['dist/main.js'], { cwd: root, port: PORT, env });
  try {
    const tickets = [];
    for (let i = 0; i < BREACHES; i++) {
      tickets.push(
        await post(`http://127.0.0.1:${PORT}/api/tickets`, {
          title: `SLA ${i}`,
          description: 'x',
          status: 'OPEN',
          priority: 'HIGH',
          requesterEmail: 'a@example.com',
        }),
      );
      await sleep(40);
    }
    const deadline = Date.now() + 120_000;
    while (arrivals.size < BREACHES) {
      if (Date.now() > deadline) throw new Error(`only ${arrivals.size} of ${BREACHES} breaches arrived`);
      await sleep(20);
    }
    const latencies = tickets.map(({ id }) => {
      const { at, event } = arrivals.get(id);
      return at - Date.parse(event.sla.breachTime);
    });
    return summary(latencies);
  } finally {
    await service.stop();
    await consumer.close();
  }
}

async function listPages(admin) {
  await admin.query(`USE \`${DB}\``);
  await admin.query('SET FOREIGN_KEY_CHECKS = 0');
  await admin.query('TRUNCATE TABLE ticket_sla_clocks');
  await admin.query('TRUNCATE TABLE ticket_sla_events');
  await admin.query('TRUNCATE TABLE ticket_words');
  await admin.query('TRUNCATE TABLE tickets');
  await admin.query('SET FOREIGN_KEY_CHECKS = 1');
  const every = Math.max(1, Math.floor(TICKETS / RUNNING));
  const started = performance.now();
  // seq_1_to_N is MariaDB's SEQUENCE engine: the rows are written by one statement each.
  await admin.query(`
    INSERT INTO tickets (id, title, description, status, priority, requester_email, assigned_to, created_at, updated_at, sla_due_at, sla_breached)
    SELECT seq, CONCAT('Ticket ', seq), 'Printer jams', ELT(1 + seq % 4, 'OPEN', 'IN_PROGRESS', 'RESOLVED', 'CLOSED'), ELT(1 + seq % 4, 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'),
           CONCAT('user', seq % 500, '@example.com'), NULL, TIMESTAMP'2026-01-01 00:00:00' + INTERVAL seq SECOND, TIMESTAMP'2026-01-01 00:00:00' + INTERVAL seq SECOND,
           IF(seq % ${every} = 0, TIMESTAMP'2026-11-01 00:00:00' + INTERVAL (seq * 7919 % 5000000) SECOND, '9999-12-31 23:59:59.999'),
           seq % ${every} = 0 AND seq % ${every * 3} = 0
    FROM seq_1_to_${TICKETS}`);
  await admin.query(`
    INSERT INTO ticket_sla_clocks (ticket_id, metric, cycle, calendar, goal, goal_ms, started_at, elapsed_ms, running_since, breach_at, breach_due_at)
    SELECT id, 'resolution', 1, 'always', 'PT100H', 360000000, created_at, 0, created_at, sla_due_at, NULL
    FROM tickets WHERE sla_due_at < '9999-01-01'`);
  await admin.query('ANALYZE TABLE tickets, ticket_sla_clocks');
  console.log(`\n(seeded ${TICKETS} tickets and ${RUNNING} clocks in ${Math.round((performance.now() - started) / 1000)} s)`);
  const service = await startProcess('service', ['dist/main.js'], { cwd: root, port: PORT, env });
  try {
    const [[deep]] = await admin.query(`SELECT sla_due_at FROM tickets ORDER BY sla_due_at, id LIMIT 1 OFFSET ${Math.floor(RUNNING / 2)}`);
    const before = new Date(deep.sla_due_at).toISOString();
    const base = `http://127.0.0.1:${PORT}/api/v2/tickets?limit=50&total=false`;
    const rows = [];
    for (const query of [
      'sort=slaDueAt',
      `slaDueBefore=${before}&sort=slaDueAt`,
      'slaBreached=true&sort=slaDueAt',
      'slaBreached=true',
      'sort=-slaDueAt',
    ]) {
      rows.push({ query, ...(await timePages(`${base}&${query}`)) });
    }
    rows.push({ query: 'sort=slaDueAt, page 1,000 deep (cursor)', ...(await timeDeep(`${base}&sort=slaDueAt`, 1000)) });
    // With the count of the matches beside the page (total=true, the default).
    const counted = `http://127.0.0.1:${PORT}/api/v2/tickets?limit=50`;
    for (const query of ['slaBreached=true&sort=slaDueAt', `slaDueBefore=${before}&sort=slaDueAt`]) {
      rows.push({ query: `${query} (total=true)`, ...(await timePages(`${counted}&${query}`)) });
    }
    return rows;
  } finally {
    await service.stop();
  }
}

async function timePages(url) {
  for (let i = 0; i < 10; i++) await get(url);
  const times = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    await get(url);
    times.push(performance.now() - started);
  }
  return summary(times);
}

/** Follows the cursor `pages` pages deep, then times the request of that page. */
async function timeDeep(url, pages) {
  let cursor;
  for (let i = 0; i < pages; i++) cursor = (await get(cursor ? `${url}&cursor=${encodeURIComponent(cursor)}` : url)).nextCursor;
  return timePages(`${url}&cursor=${encodeURIComponent(cursor)}`);
}

function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 10) / 10;
  return { p50: at(0.5), p95: at(0.95), max: Math.round(sorted.at(-1) * 10) / 10 };
}

async function get(url) {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function post(url, body) {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status !== 201) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function startConsumer(onEvent) {
  const connection = await amqp.connect(process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
  const channel = await connection.createChannel();
  await channel.assertExchange(BROKER.RABBITMQ_EXCHANGE, 'topic', { durable: true });
  const { queue } = await channel.assertQueue(`ticket.bench.sla.consumer.${randomUUID()}`, { exclusive: true });
  await channel.bindQueue(queue, BROKER.RABBITMQ_EXCHANGE, 'ticket.sla.#');
  await channel.consume(queue, (message) => onEvent(JSON.parse(message.content.toString('utf8'))), { noAck: true });
  return { close: () => connection.close() };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
