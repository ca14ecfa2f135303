// The change feed (`npm run bench:changes`): the time of a page of GET /api/v2/changes at 1,000,000 changes, near the
// start, in the middle and at the end of the feed; and what the feed's extra row costs a write, as POST /api/tickets
// throughput of this build against a build without the feed (`--baseline=<dist of the commit before it>`, see
// docs/performance.md#change-feed), measured in alternating rounds so that both see the same machine load. The
// changes are written by bulk SQL (MariaDB's SEQUENCE engine), not HTTP.
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { removeBrokerObjects } from './broker.mjs';
import { adminConnection, dropDatabases } from './seed.mjs';
import { assertPortFree, startProcess } from './process.mjs';
import { encodeChangeCursor } from '../dist/changes/change-cursor.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DB = 'tickets_bench_changes';
const BASELINE_DB = 'tickets_bench_changes_baseline';
const broker = (name) => ({
  RABBITMQ_EXCHANGE: `ticket.bench.${name}.exchange`,
  RABBITMQ_QUEUE: `ticket.bench.${name}.queue`,
  RABBITMQ_ROUTING_KEY: 'ticket.bench',
});
const PORT = 18090;
const BASELINE_PORT = 18091;
const CHUNK = 100_000;
const args = Object.fromEntries(process.argv.slice(2).map((arg) => arg.replace(/^--/, '').split('=')));
const CHANGES = Number(args.changes ?? 1_000_000);
const SECONDS = Number(args.seconds ?? 8);
const CONNECTIONS = Number(args.connections ?? 4);

/** A change as a write records it, already published to RabbitMQ: an UPDATED event with the ticket (about 520 bytes of JSON), half a second apart. */
function fillSql(from, to) {
  return `
    INSERT INTO \`${DB}\`.change_log (seq, relay_status, event_id, event_type, ticket_id, occurred_at, payload)
    SELECT seq, 'published', UUID(), 'UPDATED', 1 + seq DIV 10, NOW(3) - INTERVAL (${CHANGES} - seq) * 500000 MICROSECOND,
           JSON_OBJECT('eventId', UUID(), 'eventType', 'UPDATED',
                       'occurredAt', CONCAT(LEFT(DATE_FORMAT(NOW(3) - INTERVAL (${CHANGES} - seq) * 500000 MICROSECOND, '%Y-%m-%dT%H:%i:%s.%f'), 23), 'Z'),
                       'ticketId', 1 + seq DIV 10,
                       'ticket', JSON_OBJECT('id', 1 + seq DIV 10, 'title', CONCAT('VPN drops every hour ', seq),
                                             'description', 'The VPN client disconnects at the top of every hour since the update of the client.',
                                             'status', 'IN_PROGRESS', 'priority', 'HIGH', 'requesterEmail', CONCAT('user', seq % 5000, '@example.com'),
                                             'assignedTo', 'network-team', 'createdAt', '2026-11-01T09:00:00.000Z',
                                             'updatedAt', '2026-11-22T20:37:14.123Z', 'resolvedAt', NULL))
    FROM seq_${from}_to_${to}`;
}

async function fill(admin) {
  const started = Date.now();
  await admin.query(`USE \`${DB}\``);
  for (let from = 1; from <= CHANGES; from += CHUNK) {
    await admin.query(fillSql(from, Math.min(CHANGES, from + CHUNK - 1)));
    process.stdout.write(`\rFilled ${Math.min(CHANGES, from + CHUNK - 1)} changes`);
  }
  await admin.query(`UPDATE \`${DB}\`.change_feed_sequencer SET last_seq = ? WHERE id = 1`, [CHANGES]);
  await admin.query(`ANALYZE TABLE \`${DB}\`.change_log`);
  console.log(` in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

async function measure(name, options) {
  const run = (duration) => autocannon({ ...options, connections: options.connections ?? CONNECTIONS, duration });
  await run(1);
  const result = await run(options.seconds ?? SECONDS);
  const row = {
    scenario: name,
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    'req/s': Math.round(result.requests.average),
    'KiB/response': Math.round(result.throughput.average / Math.max(1, result.requests.average) / 1024),
    non2xx: result.non2xx + result.errors,
  };
  console.log(`${name}: p50 ${row['p50 ms']} ms, p99 ${row['p99 ms']} ms, ${row['req/s']} req/s`);
  return row;
}

async function pages(admin) {
  await dropDatabases(admin, [DB]);
  const service = await startProcess('service (changes)', ['dist/main.js'], {
    cwd: ROOT,
    port: PORT,
    env: { DB_DATABASE: DB, ...broker('changes') },
  });
  try {
    await fill(admin);
    const at = (seq, limit) => ({ url: `${service.url}/api/v2/changes?after=${encodeChangeCursor(seq)}&limit=${limit}` });
    const middle = new Date(Date.now() - (CHANGES / 2) * 500).toISOString();
    const results = [];
    for (const limit of [100, 1000]) {
      results.push(await measure(`limit=${limit}, start (after 0)`, at(0, limit)));
      results.push(await measure(`limit=${limit}, middle (after ${CHANGES / 2})`, at(CHANGES / 2, limit)));
      results.push(await measure(`limit=${limit}, end (last ${limit})`, at(CHANGES - limit, limit)));
    }
    results.push(await measure('since=<middle>, limit=100', { url: `${service.url}/api/v2/changes?since=${middle}` }));
    results.push(await measure('at the end: empty page', at(CHANGES, 100)));
    console.table(results);
    return results;
  } finally {
    await service.stop();
    await dropDatabases(admin, [DB]);
    await removeBrokerObjects(broker('changes'));
  }
}

const CREATE = JSON.stringify({
  title: 'VPN drops every hour',
  description: 'The VPN client disconnects at the top of every hour.',
  status: 'OPEN',
  priority: 'HIGH',
  requesterEmail: 'ann@example.com',
});

/** POST throughput of this build and of `baseline` (a dist without the feed), alternating rounds. */
async function writeCost(admin, baseline) {
  await dropDatabases(admin, [DB, BASELINE_DB]);
  const withFeed = await startProcess('with the feed', ['dist/main.js'], {
    cwd: ROOT,
    port: PORT,
    env: { DB_DATABASE: DB, ...broker('changes') },
  });
  const without = await startProcess('without the feed', [`${baseline}/main.js`], {
    cwd: ROOT,
    port: BASELINE_PORT,
    env: { DB_DATABASE: BASELINE_DB, ...broker('changes-baseline') },
  });
  const post = (service) => ({
    url: `${service.url}/api/tickets`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: CREATE,
    connections: 16,
    seconds: 10,
  });
  try {
    const results = [];
    for (let round = 1; round <= Number(args.rounds ?? 3); round++) {
      results.push({ ...(await measure(`POST, without the feed (round ${round})`, post(without))), build: 'without' });
      results.push({ ...(await measure(`POST, with the feed (round ${round})`, post(withFeed))), build: 'with' });
    }
    console.table(results);
    const median = (build) => {
      const rates = results
        .filter((row) => row.build === build)
        .map((row) => row['req/s'])
        .sort((a, b) => a - b);
      return rates[Math.floor(rates.length / 2)];
    };
    console.log(
      `median POST/s: without ${median('without')}, with ${median('with')} (${(((median('with') - median('without')) / median('without')) * 100).toFixed(1)} %)`,
    );
    // Each round's pair ran back to back, under about the same load from outside: their ratio is steadier than either rate.
    const ratios = [];
    for (let i = 0; i + 1 < results.length; i += 2) ratios.push(results[i + 1]['req/s'] / results[i]['req/s']);
    ratios.sort((a, b) => a - b);
    console.log(
      `per round, with / without: ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}; median ${ratios[Math.floor(ratios.length / 2)].toFixed(2)}`,
    );
    return results;
  } finally {
    await Promise.all([withFeed.stop(), without.stop()]);
    await dropDatabases(admin, [DB, BASELINE_DB]);
    await removeBrokerObjects(broker('changes'));
    await removeBrokerObjects(broker('changes-baseline'));
  }
}

const admin = await adminConnection();
try {
  await assertPortFree(PORT);
  if (!args['writes-only']) await pages(admin);
  if (args.baseline) await writeCost(admin, args.baseline);
} finally {
  await admin.end();
}
