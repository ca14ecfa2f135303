// The list queries on 1,000,000 tickets (`npm run bench -- --queries`, or --queries-only): pages of a queue,
// shallow and 10,000 tickets deep, with and without the total, and full-text search pages (whole words and a
// prefix), each measured with autocannon against the service; then a requester's list and search beside an agent's
// (bench/requesters.mjs). The tickets and their words are written by bulk SQL
// (MariaDB's SEQUENCE engine), not HTTP.
import autocannon from 'autocannon';
import { removeBrokerObjects } from './broker.mjs';
import { dropDatabases } from './seed.mjs';
import { assertPortFree, startProcess } from './process.mjs';
import { withCpuPerRequest } from './report.mjs';
import { requesterBench } from './requesters.mjs';
import { INNODB_STOP_WORDS, MIN_WORD_LENGTH } from '../dist/tickets/query/ticket-search.js';

const DB = 'tickets_bench_queries';
const BROKER = {
  RABBITMQ_EXCHANGE: 'ticket.bench.queries.exchange',
  RABBITMQ_QUEUE: 'ticket.bench.queries.queue',
  RABBITMQ_ROUTING_KEY: 'ticket.bench',
};
const PORT = 18086;
const CHUNK = 100_000;
const DEPTH = 10_000;

const words = (list) => list.map((word) => `'${word}'`).join(', ');
const THINGS = words([
  'Printer',
  'VPN',
  'Laptop',
  'Mailbox',
  'Monitor',
  'Keyboard',
  'Server',
  'Phone',
  'Badge',
  'Wifi',
  'Projector',
  'Scanner',
  'Headset',
  'Docking station',
  'License',
  'Account',
]);
const TROUBLES = words([
  'jams',
  'disconnects',
  'is slow',
  'will not start',
  'shows an error',
  'needs replacing',
  'keeps rebooting',
  'lost its settings',
]);
const PLACES = words(['north wing', 'south wing', 'annex', 'warehouse', 'head office', 'lab']);

/**
 * One ticket in ten is OPEN (100,000 in the queue), 200 per requester, an assignee on two in three; creation
 * times a minute apart, updates up to 30 days later. Titles repeat a small vocabulary (a word like "printer"
 * is in 62,500 tickets); each description has an error code (`ERR1000`..`ERR5999`) that 200 tickets share.
 */
export function seedSql(db, from, to) {
  return `
    INSERT INTO \`${db}\`.tickets (title, description, status, priority, requester_email, assigned_to, created_at, updated_at)
    SELECT CONCAT(ELT(1 + seq % 16, ${THINGS}), ' ', ELT(1 + (seq DIV 16) % 8, ${TROUBLES})),
           CONCAT('Reported from desk ', seq % 900, ' in the ', ELT(1 + seq % 6, ${PLACES}), '. The log shows ERR', 1000 + seq % 5000, '.'),
           IF(seq % 10 = 0, 'OPEN', ELT(1 + seq % 4, 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED')),
           ELT(1 + seq % 4, 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'),
           CONCAT('user', seq % 5000, '@example.com'),
           IF(seq % 3 = 0, NULL, CONCAT('desk-', seq % 50)),
           TIMESTAMP'2024-01-01 00:00:00' + INTERVAL seq MINUTE,
           TIMESTAMP'2024-01-01 00:00:00' + INTERVAL seq MINUTE + INTERVAL (seq * 7919 % 2592000) SECOND
    FROM \`${db}\`.seq_${from}_to_${to}`;
}

/** How many words of a ticket the split below looks at: a seeded ticket has at most 16. */
const MAX_WORDS = 24;
const STOP_WORDS = words([...INNODB_STOP_WORDS]);

/**
 * The search index (ticket_words) of the tickets `from`..`to`, by SQL as the service's tokenizer would write it
 * (the seeded text is ASCII): every character but a letter, digit or _ becomes a space, the text is cut at the
 * spaces by a sequence, and words shorter than 3 characters and stop words are left out. The text of each ticket
 * is made once (derived_merge=off: merged into the outer query, it would be made again for every word, 6 times slower).
 */
function wordsSql(db, from, to) {
  return `
    SET STATEMENT optimizer_switch = 'derived_merge=off' FOR
    INSERT IGNORE INTO \`${db}\`.ticket_words (word, ticket_id)
    SELECT SUBSTRING_INDEX(SUBSTRING_INDEX(t.text, ' ', n.seq), ' ', -1) AS word, t.id
    FROM (SELECT id, LOWER(TRIM(REGEXP_REPLACE(CONCAT(title, ' ', description), '[^A-Za-z0-9_]+', ' '))) AS text
          FROM \`${db}\`.tickets WHERE id BETWEEN ${from} AND ${to}) t
    JOIN \`${db}\`.seq_1_to_${MAX_WORDS} n ON n.seq <= 1 + LENGTH(t.text) - LENGTH(REPLACE(t.text, ' ', ''))
    HAVING CHAR_LENGTH(word) >= ${MIN_WORD_LENGTH} AND word NOT IN (${STOP_WORDS})`;
}

/** Bulk insert in chunks, the tickets and then their words. */
async function seed(admin, rows, db = DB) {
  const started = Date.now();
  for (let from = 1; from <= rows; from += CHUNK) {
    await admin.query(seedSql(db, from, Math.min(rows, from + CHUNK - 1)));
    process.stdout.write(`\rSeeded ${Math.min(rows, from + CHUNK - 1)} tickets`);
  }
  const seeded = Date.now();
  // Bulk inserts leave gaps in the ids (InnoDB reserves them in batches), so the words go by id range up to the last.
  const [[{ last }]] = await admin.query(`SELECT MAX(id) AS last FROM \`${db}\`.tickets`);
  await admin.query('SET SESSION foreign_key_checks = 0');
  for (let from = 1; from <= last; from += CHUNK) {
    await admin.query(wordsSql(db, from, from + CHUNK - 1));
    process.stdout.write(`\rSeeded the words of tickets up to ${Math.min(last, from + CHUNK - 1)}`);
  }
  await admin.query('SET SESSION foreign_key_checks = 1');
  await admin.query(`ANALYZE TABLE \`${db}\`.tickets, \`${db}\`.ticket_words`);
  console.log(
    ` in ${((Date.now() - started) / 1000).toFixed(0)} s (tickets ${((seeded - started) / 1000).toFixed(0)} s, words and statistics ${((Date.now() - seeded) / 1000).toFixed(0)} s)`,
  );
}

/** The cursor `depth` tickets into a list, reached a thousand at a time as a client would page there. */
async function cursorAt(url, path, depth) {
  let cursor;
  for (let seen = 0; seen < depth; seen += 1000) {
    const response = await fetch(`${url}${path}&limit=1000&total=false${cursor ? `&cursor=${cursor}` : ''}`);
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    cursor = new URL(/<([^>]+)>/.exec(response.headers.get('link'))[1], url).searchParams.get('cursor');
  }
  return cursor;
}

/**
 * One request measured for `seconds` after a second's warm-up; `headers` go with each (a bearer token, say), and
 * `method` and `body` make it another than a GET. With the service's `pid`, also the CPU time per request of the
 * service and of the database (on this machine) over the same time.
 */
export async function measure(url, name, path, { seconds, connections, headers, method = 'GET', body, pid }) {
  const run = (duration) => autocannon({ url: `${url}${path}`, connections, duration, headers, method, body });
  await run(1);
  const { result, cpuUsPerRequest, databaseCpuUsPerRequest } = pid
    ? await withCpuPerRequest(pid, () => run(seconds))
    : { result: await run(seconds) };
  const row = {
    scenario: name,
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    'req/s': Math.round(result.requests.average),
    non2xx: result.non2xx + result.errors,
    ...(pid && { 'CPU µs': cpuUsPerRequest, 'DB CPU µs': databaseCpuUsPerRequest }),
  };
  const costs = pid ? `, CPU ${cpuUsPerRequest} µs + DB ${databaseCpuUsPerRequest ?? '?'} µs a request` : '';
  console.log(`${name}: p50 ${row['p50 ms']} ms, p99 ${row['p99 ms']} ms, ${row['req/s']} req/s${costs}`);
  return row;
}

export async function queryBench({ admin, root, rows = 1_000_000, seconds = 8, connections = 4 }) {
  await assertPortFree(PORT);
  await dropDatabases(admin, [DB]);
  const service = await startProcess('service (queries)', ['dist/main.js'], { cwd: root, port: PORT, env: { DB_DATABASE: DB, ...BROKER } });
  try {
    await seed(admin, rows);
    const url = service.url;
    const queue = '/api/tickets?status=OPEN&sort=-updatedAt';
    const deep = await cursorAt(url, queue, DEPTH);
    const options = { seconds, connections };
    const scenarios = [
      ['queue, first page', `${queue}&limit=50&total=false`],
      [`queue, page ${DEPTH} deep`, `${queue}&limit=50&total=false&cursor=${deep}`],
      ['queue, first page + total', `${queue}&limit=50`],
      [`queue, page ${DEPTH} deep + total`, `${queue}&limit=50&cursor=${deep}`],
      ['v2 queue, first page + total', '/api/v2/tickets?status=OPEN&sort=-updatedAt'],
      ['search q=err1234 (200 matches)', '/api/tickets?q=err1234&limit=50&total=false'],
      ['search q=err1234 + total', '/api/tickets?q=err1234&limit=50'],
      ['search q=printer jams (7,813 matches)', '/api/tickets?q=printer%20jams&limit=50&total=false'],
      ['search q=printer jams + total', '/api/tickets?q=printer%20jams&limit=50'],
      ['search q=print* (prefix, 62,500 matches)', '/api/tickets?q=print*&limit=50&total=false'],
      ['search q=print* + total', '/api/tickets?q=print*&limit=50'],
    ];
    const results = [];
    for (const [name, path] of scenarios) results.push(await measure(url, name, path, options));
    console.table(results);
    await service.stop();
    const requesters = await requesterBench({ root, env: { DB_DATABASE: DB, ...BROKER }, seconds, connections, measure });
    return { rows, connections, seconds, results, requesters };
  } finally {
    await service.stop();
    await dropDatabases(admin, [DB]);
    await removeBrokerObjects(BROKER);
  }
}
