// Tags and custom fields at scale (`npm run bench:vocabulary`): 1,000,000 tickets (bench/queries.mjs's rows), 20
// defined fields with 10 values a ticket, 5 tags a ticket; pages of 50 filtered by a tag, an enum value, a number
// range and a combination with status, each measured with autocannon against the service; then a v2 create with 10
// values and 5 tags beside one without. Tags and values are written by bulk SQL (MariaDB's SEQUENCE engine), not HTTP.
// Flags: --rows, --seconds, --connections, --create-rounds (the creates' alternating rounds, default 3), --creates-only
// (the creates without the lists); --keep leaves the database, which --seeded then measures without seeding.
import { fileURLToPath } from 'node:url';
import { removeBrokerObjects } from './broker.mjs';
import { assertPortFree, startProcess } from './process.mjs';
import { measure, seedSql } from './queries.mjs';
import { adminConnection, dropDatabases } from './seed.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((arg) => arg.replace(/^--/, '').split('=')));
const ROWS = Number(args.rows ?? 1_000_000);
const SECONDS = Number(args.seconds ?? 8);
const CONNECTIONS = Number(args.connections ?? 4);
const CREATE_ROUNDS = Number(args['create-rounds'] ?? 3);
const DB = 'tickets_bench_vocabulary';
const BROKER = {
  RABBITMQ_EXCHANGE: 'ticket.bench.vocabulary.exchange',
  RABBITMQ_QUEUE: 'ticket.bench.vocabulary.queue',
  RABBITMQ_ROUTING_KEY: 'ticket.bench',
};
const PORT = 18088;
const CHUNK = 100_000;
const root = fileURLToPath(new URL('..', import.meta.url));

const CATEGORIES = ['network', 'hardware', 'access', 'software', 'printing', 'telephony', 'facilities', 'security'];
/** 20 fields: 4 of each type but multi_enum's 2 and text's 2; the first 10 get a value on every ticket. */
const FIELDS = [
  { key: 'category', type: 'enum', options: CATEGORIES },
  { key: 'cost', type: 'number', min: 0, max: 100000 },
  { key: 'due', type: 'date' },
  { key: 'oncall', type: 'boolean' },
  { key: 'site', type: 'enum', options: ['ber', 'muc', 'ham', 'fra', 'cgn'] },
  { key: 'effort', type: 'number' },
  { key: 'warranty_until', type: 'date' },
  { key: 'vip', type: 'boolean' },
  { key: 'asset', type: 'text' },
  { key: 'channels', type: 'multi_enum', options: ['mail', 'phone', 'chat', 'portal'] },
  ...Array.from({ length: 10 }, (_, i) => ({
    key: `spare_${i}`,
    type: ['enum', 'number', 'date', 'boolean', 'text'][i % 5],
    options: i % 5 === 0 ? ['x', 'y'] : undefined,
  })),
].map((field) => ({ label: field.key, ...field }));

/**
 * A number of 0..n-1 for ticket `t.id` and a name, spread as by chance: independent of the ticket's status and of other
 * names' numbers (tickets.id modulo would tie them, so that `status=OPEN` and a tag never met; so would CRC32, which is
 * linear: its low bits of two names differ by a constant).
 */
const spread = (name, n) => `CONV(LEFT(MD5(CONCAT('${name}', t.id)), 8), 16, 10) % ${n}`;

/** The SQL value columns of each seeded field of ticket `t.id`: [text, number, date]. */
const VALUES = {
  category: `ELT(1 + ${spread('category', 8)}, ${CATEGORIES.map((c) => `'${c}'`).join(', ')}), NULL, NULL`,
  cost: 'NULL, t.id * 37 % 100000, NULL',
  due: `NULL, NULL, DATE'2024-01-01' + INTERVAL ${spread('due', 1000)} DAY`,
  oncall: `IF(${spread('oncall', 2)} = 0, 'true', 'false'), NULL, NULL`,
  site: `ELT(1 + ${spread('site', 5)}, 'ber', 'muc', 'ham', 'fra', 'cgn'), NULL, NULL`,
  effort: `NULL, ${spread('effort', 40)}, NULL`,
  warranty_until: `NULL, NULL, DATE'2025-01-01' + INTERVAL ${spread('warranty', 700)} DAY`,
  vip: `IF(${spread('vip', 50)} = 0, 'true', 'false'), NULL, NULL`,
  asset: `CONCAT('PC-', LPAD(${spread('asset', 10000)}, 4, '0')), NULL, NULL`,
  channels: `ELT(1 + ${spread('channels', 4)}, 'mail', 'phone', 'chat', 'portal'), NULL, NULL`,
};
/** Five tags a ticket, from vocabularies of 10, 50, 200, 1,000 and 5,000 tags (`b7`: about 20,000 tickets). */
const TAGS = [
  ['a', 10],
  ['b', 50],
  ['c', 200],
  ['d', 1000],
  ['e', 5000],
];

async function seed(admin, fieldIds) {
  const started = Date.now();
  for (let from = 1; from <= ROWS; from += CHUNK) {
    await admin.query(seedSql(DB, from, Math.min(ROWS, from + CHUNK - 1)));
    process.stdout.write(`\rSeeded ${Math.min(ROWS, from + CHUNK - 1)} tickets`);
  }
  const [[{ last }]] = await admin.query(`SELECT MAX(id) AS last FROM \`${DB}\`.tickets`);
  await admin.query('SET SESSION foreign_key_checks = 0');
  for (let from = 1; from <= last; from += CHUNK) {
    const range = `FROM \`${DB}\`.tickets t WHERE t.id BETWEEN ${from} AND ${from + CHUNK - 1}`;
    for (const [prefix, size] of TAGS) {
      await admin.query(
        `INSERT INTO \`${DB}\`.ticket_tags (tag, ticket_id) SELECT CONCAT('${prefix}', ${spread(prefix, size)}), t.id ${range}`,
      );
    }
    for (const [key, columns] of Object.entries(VALUES)) {
      await admin.query(
        `INSERT INTO \`${DB}\`.ticket_field_values (ticket_id, field_id, item, text_value, number_value, date_value)
         SELECT t.id, ${fieldIds.get(key)}, 0, ${columns} ${range}`,
      );
    }
    process.stdout.write(`\rSeeded the tags and values of tickets up to ${Math.min(last, from + CHUNK - 1)}`);
  }
  await admin.query('SET SESSION foreign_key_checks = 1');
  await admin.query(`ANALYZE TABLE \`${DB}\`.tickets, \`${DB}\`.ticket_tags, \`${DB}\`.ticket_field_values`);
  console.log(` in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

const admin = await adminConnection();
await assertPortFree(PORT);
// --seeded measures a database an earlier run left (--keep), without seeding it again.
const seeded = 'seeded' in args;
if (!seeded) await dropDatabases(admin, [DB]);
const service = await startProcess('service (vocabulary)', ['dist/main.js'], {
  cwd: root,
  port: PORT,
  env: { DB_DATABASE: DB, ...BROKER },
});
try {
  for (const field of seeded ? [] : FIELDS) {
    const response = await fetch(`${service.url}/api/v2/fields`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(field),
    });
    if (response.status !== 201) throw new Error(`defining ${field.key} answered ${response.status}: ${await response.text()}`);
  }
  const [definitions] = await admin.query(`SELECT id, field_key FROM \`${DB}\`.field_definitions`);
  if (!seeded) await seed(admin, new Map(definitions.map((row) => [row.field_key, row.id])));
  const page = '/api/v2/tickets?limit=50&total=false';
  const results = [];
  const lists = [
    ['status=OPEN (the reference)', '&status=OPEN'],
    ['tag b7 (20,000 tickets)', '&tags=b7'],
    ['enum category=network (125,000)', '&field.category=network'],
    ['number range cost 100..199 (1,000)', '&field.cost.gte=100&field.cost.lt=200'],
    ['status + tag + enum + range (600)', '&status=OPEN&tags=a3&field.category=access&field.cost.gte=0&field.cost.lt=50000'],
    ['status + two tags never together (none)', '&status=OPEN&tags=a3&tags=a4'],
    ['tag d42, by id (1,000)', '&tags=d42&sort=id'],
    ['sorted by number field cost', '&sort=field.cost'],
    ['tag b7, sorted by enum field -category', '&tags=b7&sort=-field.category'],
    ['site=ber, sorted by date field due', '&field.site=ber&sort=field.due'],
    [
      'status + tag + enum + range, sorted by cost',
      '&status=OPEN&tags=a3&field.category=access&field.cost.gte=0&field.cost.lt=50000&sort=field.cost',
    ],
  ];
  for (const [name, filter] of 'creates-only' in args ? [] : lists) {
    const sorted = filter.includes('&sort=') ? filter : `${filter}&sort=-updatedAt`;
    results.push(await measure(service.url, name, `${page}${sorted}`, { seconds: SECONDS, connections: CONNECTIONS }));
  }
  const body = (parts) =>
    JSON.stringify({
      title: 'Printer jams',
      description: 'Paper stuck in tray 2',
      status: 'OPEN',
      priority: 'HIGH',
      requesterEmail: 'ann@example.com',
      ...parts,
    });
  const withParts = body({
    tags: ['a1', 'b2', 'c3', 'd4', 'e5'],
    fields: {
      category: 'network',
      cost: 120.5,
      due: '2026-12-01',
      oncall: true,
      site: 'ber',
      effort: 3,
      warranty_until: '2027-01-01',
      vip: false,
      asset: 'PC-0042',
      channels: ['mail', 'chat'],
    },
  });
  const options = (payload) => ({
    pid: service.pid,
    seconds: SECONDS,
    connections: CONNECTIONS,
    method: 'POST',
    body: payload,
    headers: { 'content-type': 'application/json' },
  });
  const [[{ seededUpTo }]] = await admin.query(`SELECT MAX(id) AS seededUpTo FROM \`${DB}\`.tickets`);
  // Rounds that alternate (without, with, without…), so that neither side always runs on the warmer or fuller table;
  // each side is the mean of its rounds (a single 6 s round's millisecond p50 moved the ratio between 1.25 and 1.67).
  const rounds = { plain: [], full: [] };
  for (let round = 1; round <= CREATE_ROUNDS; round++) {
    rounds.plain.push(await measure(service.url, `v2 create, no tags or fields, round ${round}`, '/api/v2/tickets', options(body({}))));
    rounds.full.push(
      await measure(service.url, `v2 create, 5 tags and 10 field values, round ${round}`, '/api/v2/tickets', options(withParts)),
    );
  }
  const mean = (rows, key) => Math.round((rows.reduce((sum, row) => sum + row[key], 0) / rows.length) * 10) / 10;
  const side = (scenario, rows) => ({
    scenario,
    'p50 ms': mean(rows, 'p50 ms'),
    'p99 ms': Math.max(...rows.map((row) => row['p99 ms'])),
    'req/s': mean(rows, 'req/s'),
    'CPU µs': mean(rows, 'CPU µs'),
    'DB CPU µs': mean(rows, 'DB CPU µs'),
    non2xx: rows.reduce((sum, row) => sum + row.non2xx, 0),
  });
  const plain = side(`v2 create, no tags or fields (${CREATE_ROUNDS} rounds)`, rounds.plain);
  const full = side(`v2 create, 5 tags and 10 field values (${CREATE_ROUNDS} rounds)`, rounds.full);
  results.push(plain, full);
  // The tickets the creates wrote are the most recently updated: a kept database would otherwise list them first next time.
  await admin.query(`DELETE FROM \`${DB}\`.tickets WHERE id > ?`, [seededUpTo]);
  console.table(results);
  console.log(
    `A create with 10 values and 5 tags costs ${(full['p50 ms'] / plain['p50 ms']).toFixed(2)}x the p50 of one without ` +
      `(${(plain['req/s'] / full['req/s']).toFixed(2)}x in req/s, ${(full['CPU µs'] / plain['CPU µs']).toFixed(2)}x the service's CPU ` +
      `and ${(full['DB CPU µs'] / plain['DB CPU µs']).toFixed(2)}x the database's per request)`,
  );
} finally {
  await service.stop();
  // --keep leaves the seeded database for a look at its plans (and --seeded runs).
  if (!('keep' in args)) await dropDatabases(admin, [DB]);
  await removeBrokerObjects(BROKER);
  await admin.end();
}
