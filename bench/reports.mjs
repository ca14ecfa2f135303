// The numbers a desk reports on, and its export, at scale (`npm run bench:reports`): against the database that
// `npm run bench:vocabulary -- --keep` leaves (1,000,000 tickets with 5 tags and 10 custom field values each), the
// stats by one and two keys measured with autocannon, then one whole export as NDJSON and one as CSV read by a client
// as fast as it can, with their time, size and the service's resident memory sampled every 100 ms.
// Flags: --seconds, --connections; --no-export measures the stats alone.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { removeBrokerObjects } from './broker.mjs';
import { assertPortFree, startProcess } from './process.mjs';
import { measure } from './queries.mjs';
import { adminConnection } from './seed.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((arg) => arg.replace(/^--/, '').split('=')));
const SECONDS = Number(args.seconds ?? 8);
const CONNECTIONS = Number(args.connections ?? 2);
const DB = 'tickets_bench_vocabulary';
const BROKER = {
  RABBITMQ_EXCHANGE: 'ticket.bench.reports.exchange',
  RABBITMQ_QUEUE: 'ticket.bench.reports.queue',
  RABBITMQ_ROUTING_KEY: 'ticket.bench',
};
const PORT = 18089;
const root = fileURLToPath(new URL('..', import.meta.url));

/** The resident memory of a process, in MiB (Linux). */
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** One whole export read as fast as the client can: its time, its size, and the service's memory before and at most. */
async function exported(service, format) {
  const before = rssMiB(service.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(service.pid))), 100);
  const started = Date.now();
  const response = await fetch(`${service.url}/api/v2/tickets/export?format=${format}`);
  if (response.status !== 200) throw new Error(`export answered ${response.status}: ${await response.text()}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of response.body) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 10) lines += 1;
  }
  clearInterval(sampler);
  return {
    scenario: `export, ${format}`,
    seconds: Number(((Date.now() - started) / 1000).toFixed(1)),
    lines,
    MiB: Number((bytes / 1024 / 1024).toFixed(0)),
    'rss before MiB': Number(before.toFixed(0)),
    'rss peak MiB': Number(peak.toFixed(0)),
  };
}

const admin = await adminConnection();
const [[present]] = await admin.query('SELECT COUNT(*) AS n FROM information_schema.schemata WHERE schema_name = ?', [DB]);
if (Number(present.n) === 0) throw new Error(`No ${DB}: run \`npm run bench:vocabulary -- --keep\` first`);
const [[{ rows }]] = await admin.query(`SELECT COUNT(*) AS \`rows\` FROM \`${DB}\`.tickets`);
console.log(`${rows} tickets in ${DB}`);
await assertPortFree(PORT);
const service = await startProcess('service (reports)', ['dist/main.js'], { cwd: root, port: PORT, env: { DB_DATABASE: DB, ...BROKER } });
try {
  const results = [];
  for (const [name, query] of [
    ['stats by status', 'groupBy=status'],
    ['stats by status, priority', 'groupBy=status,priority'],
    ['stats by status, priority of OPEN', 'groupBy=status,priority&status=OPEN'],
    ['stats by tag of 44,000 (createdAfter)', 'groupBy=tag&createdAfter=2025-10-25T00:00:00Z'],
    ['stats by field.category, priority of 44,000', 'groupBy=field.category,priority&createdAfter=2025-10-25T00:00:00Z'],
    [
      'stats by createdAt:day, priority of 44,000 (Europe/Berlin)',
      'groupBy=createdAt:day,priority&zone=Europe/Berlin&createdAfter=2025-10-25T00:00:00Z',
    ],
    ['stats by createdAt:day of tag b7 (20,000)', 'groupBy=createdAt:day&tags=b7'],
    ['stats by tag of all (refused: 400)', 'groupBy=tag'],
  ]) {
    results.push(await measure(service.url, name, `/api/v2/tickets/stats?${query}`, { seconds: SECONDS, connections: CONNECTIONS }));
  }
  console.table(results);
  if (!('no-export' in args)) console.table([await exported(service, 'ndjson'), await exported(service, 'csv')]);
} finally {
  await service.stop();
  await removeBrokerObjects(BROKER);
  await admin.end();
}
