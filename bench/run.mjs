// `npm run bench`: the service (dist/main.js) against two references on the same MariaDB and RabbitMQ, in the same
// run: the conventional service (bench/conventional/, the service as the Nest documentation builds it: TypeORM
// repository, global ValidationPipe, ClientRMQ emit, nothing else) in every scenario, and the stack's ceiling
// (bench/nest-ceiling.mjs: Nest on Express, one route, the same SELECT) for GET by id. For every scenario both
// sides get a warm-up, then measured rounds that alternate between the two (ABBA…), so neither always runs on
// the warmer (or noisier) side.
// Prints a table and writes bench/results.json. Options: --duration=<s> (measured seconds per side, default 6),
// --rounds=<n> (default 3), --warmup=<s> (default 2), --tickets=<n> (default 10000), --service=<main.js>, --growth,
// --outbox-seconds=<s> (sustained POST load per side in the outbox section, default 30), --outbox-only, --endpoints-only
// (POST create beside 1,000 hanging webhook endpoints and 20,000 pending deliveries, bench/endpoints.mjs),
// --queries (also the list queries on 1,000,000 tickets, see bench/queries.mjs; minutes of seeding), --queries-only,
// --only=<scenario name prefixes> (those scenarios alone, e.g. --only='GET by id,POST', without the outbox section),
// --against=<main.js> (another build of the service, e.g. one of an earlier commit built into .earlier-build/ at the root,
// in place of the conventional service: whether a change pays off, measured alternating in one run),
// --fixed-rate=<req/s> (the rate of the fixed-load section; default half the conventional service's mixed req/s),
// --fixed-seconds=<s> (default 20), --scale-only (the scale section alone), --no-scale (without it).
// The scale section (bench/scale.mjs) runs last, on BENCH_SCALE_ROWS tickets (default 1,000,000).
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { removeBrokerObjects, removeQueue } from './broker.mjs';
import { combine, measure, printTable, ratio } from './report.mjs';
import { endpointsSection } from './endpoints.mjs';
import { floorLine, hostFloor } from './host-floor.mjs';
import { sustainedCreates, waitingForBroker } from './outbox.mjs';
import { queryBench } from './queries.mjs';
import { fullListScenario, mixedRequest, scenarios } from './scenarios.mjs';
import { combined, constantRate } from './constant-rate.mjs';
import { SCALE_ROWS, scaleSide, seedScale, withScaleBufferPool } from './scale.mjs';
import { adminConnection, cloneSchema, dropDatabases, seedTickets } from './seed.mjs';
import { assertPortFree, startProcess } from './process.mjs';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const DURATION_S = arg('duration', 6);
const WARMUP_S = arg('warmup', 2);
const SEEDED = arg('tickets', 10_000);
const ROUNDS = arg('rounds', 3);
// --growth: also the full list at 1k, 10k and 50k tickets, to see how time and memory grow with it.
const GROWTH = process.argv.includes('--growth');
const GROWTH_SIZES = [1_000, 10_000, 50_000];
const OUTBOX_SECONDS = arg('outbox-seconds', 30);
const OUTBOX_ONLY = process.argv.includes('--outbox-only');
const ENDPOINTS_ONLY = process.argv.includes('--endpoints-only');
const SERVICE_MAIN = process.argv.find((a) => a.startsWith('--service='))?.split('=')[1] ?? 'dist/main.js';
const QUERIES_ONLY = process.argv.includes('--queries-only');
const QUERIES = QUERIES_ONLY || process.argv.includes('--queries');
// --only=<name prefix>[,<prefix>…]: just the scenarios whose name starts with one (and the ceiling with "GET by id"),
// no outbox section.
const ONLY = process.argv
  .find((a) => a.startsWith('--only='))
  ?.split('=')[1]
  ?.split(',');
const chosen = (name) => !ONLY || ONLY.some((prefix) => name.startsWith(prefix));
const AGAINST = process.argv.find((a) => a.startsWith('--against='))?.split('=')[1];
const FIXED_RATE = arg('fixed-rate', 0);
const FIXED_SECONDS = arg('fixed-seconds', 20);
const SCALE_ONLY = process.argv.includes('--scale-only');
// --slowest: the fixed-load section also lists its slowest requests by when they were due (whether the tail is periodic).
const SHOW_SLOWEST = process.argv.includes('--slowest');
const SCALE = !process.argv.includes('--no-scale') && !AGAINST;

const SERVICE_DB = 'tickets_bench';
const REFERENCE_DB = 'tickets_bench_conventional';
const BROKER = { RABBITMQ_EXCHANGE: 'ticket.bench.exchange', RABBITMQ_QUEUE: 'ticket.bench.queue', RABBITMQ_ROUTING_KEY: 'ticket.bench' };
const CONVENTIONAL_QUEUE = 'ticket.bench.conventional.queue';
const EARLIER_BROKER = {
  RABBITMQ_EXCHANGE: 'ticket.bench.earlier.exchange',
  RABBITMQ_QUEUE: 'ticket.bench.earlier.queue',
  RABBITMQ_ROUTING_KEY: 'ticket.bench.earlier',
};
const SERVICE_PORT = 18080;
const REFERENCE_PORT = 18081;
const DIRECT_PORT = 18082;
const CEILING_PORT = 18085;
const RAW_PORT = 18087;
const root = fileURLToPath(new URL('..', import.meta.url));

async function main() {
  for (const port of [SERVICE_PORT, REFERENCE_PORT, DIRECT_PORT, CEILING_PORT, RAW_PORT]) await assertPortFree(port);
  const admin = await adminConnection();
  if (QUERIES_ONLY) {
    try {
      const queries = await queryBench({ admin, root });
      await writeFile(
        new URL('results-queries.json', import.meta.url),
        JSON.stringify({ date: new Date().toISOString(), machine: machineLine(), queries }, null, 2),
      );
    } finally {
      await admin.end();
    }
    return;
  }
  await dropDatabases(admin, [SERVICE_DB, REFERENCE_DB]);
  const service = await startProcess('service', [SERVICE_MAIN], {
    cwd: root,
    port: SERVICE_PORT,
    // Private addresses allowed: the endpoints section registers endpoints on a local receiver.
    env: { DB_DATABASE: SERVICE_DB, ...BROKER, WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' },
  });
  let reference;
  try {
    if (AGAINST) {
      // Another build of the service: it makes its own schema.
      reference = await startProcess('earlier build', [AGAINST], {
        cwd: root,
        port: REFERENCE_PORT,
        env: { DB_DATABASE: REFERENCE_DB, ...EARLIER_BROKER },
      });
    } else {
      await cloneSchema(admin, SERVICE_DB, REFERENCE_DB);
      reference = await startConventional(admin);
    }
    for (const db of [SERVICE_DB, REFERENCE_DB]) await seedTickets(admin, db, SEEDED);
    console.log(`Seeded ${SEEDED} tickets in each database; ${WARMUP_S} s warm-up and ${DURATION_S} s measured per target and scenario.\n`);

    if (ENDPOINTS_ONLY) {
      await webhookEndpointsSection(admin, service);
      return;
    }
    if (SCALE_ONLY) {
      const scale = await scaleSection(admin, service, reference);
      await writeFile(
        new URL('results-scale.json', import.meta.url),
        JSON.stringify({ date: new Date().toISOString(), machine: machineLine(), scale }, null, 2),
      );
      return;
    }
    const results = [];
    if (!OUTBOX_ONLY) {
      for (const [index, scenario] of scenarios(SEEDED).entries()) {
        if (chosen(scenario.name)) results.push(await compare(service, reference, scenario, index));
      }
      if (chosen('GET by id') && !AGAINST) results.push(...(await compareFloors(service)));
      printTable(results);
    }
    const mixed = results.find((row) => row.scenario.startsWith('mixed'));
    const fixedRate = FIXED_RATE || (mixed ? Math.round(mixed.reference.rps / 2) : 0);
    const fixedLoad = fixedRate > 0 ? await fixedLoadSection(admin, service, reference, fixedRate) : undefined;
    if (ONLY) return;
    const machine = machineLine();
    const growth = [];
    if (GROWTH) {
      console.log('\nGrowth of the full list:');
      for (const [index, size] of GROWTH_SIZES.entries()) {
        for (const db of [SERVICE_DB, REFERENCE_DB]) await seedTickets(admin, db, size);
        // One round each: a request for 50k rows takes seconds, and one still in flight when a round ends is not counted.
        growth.push(await compare(service, reference, fullListScenario(size), index, 1));
      }
      printTable(growth);
    }
    const outbox = await compareOutbox(service, admin);
    const endpoints = await webhookEndpointsSection(admin, service);
    const queries = QUERIES ? await queryBench({ admin, root }) : undefined;
    const scale = SCALE ? await scaleSection(admin, service, reference) : undefined;
    const report = {
      date: new Date().toISOString(),
      machine,
      seeded: SEEDED,
      durationS: DURATION_S,
      rounds: ROUNDS,
      results,
      growth,
      fixedLoad,
      outbox,
      endpoints,
      queries,
      scale,
    };
    await writeFile(new URL('results.json', import.meta.url), JSON.stringify(report, null, 2));
    console.log(`\n${machine}\nWritten to bench/results.json`);
  } finally {
    await reference?.stop();
    await service.stop();
    await dropDatabases(admin, [SERVICE_DB, REFERENCE_DB]);
    await admin.end();
    await removeBrokerObjects(BROKER);
    await removeQueue(CONVENTIONAL_QUEUE);
    if (AGAINST) await removeBrokerObjects(EARLIER_BROKER);
  }
}

async function startConventional(admin) {
  // The timestamps as the conventional service's @CreateDateColumn/@UpdateDateColumn expect them (what its
  // schema synchronisation would create): filled in by the database.
  await admin.query(
    `ALTER TABLE \`${REFERENCE_DB}\`.tickets MODIFY created_at datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
     MODIFY updated_at datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3)`,
  );
  // The conventional service publishes with the stock ClientRMQ to a queue of its own (no exchange binding).
  const env = { DB_DATABASE: REFERENCE_DB, RABBITMQ_QUEUE: CONVENTIONAL_QUEUE };
  return startProcess('conventional', ['bench/.conventional-build/main.js'], { cwd: root, port: REFERENCE_PORT, env });
}

/** POST create p50 without endpoints and with 1,000 hanging ones and 20,000 pending deliveries (bench/endpoints.mjs). */
async function webhookEndpointsSection(admin, service) {
  const scenario = scenarios(SEEDED).find((candidate) => candidate.name.startsWith('POST'));
  console.log(`\nPOST create with webhook endpoints (${DURATION_S} s each, service alone):`);
  const result = await endpointsSection({ admin, service, database: SERVICE_DB, scenario, warmupS: WARMUP_S, seconds: DURATION_S });
  const line = (name, side) =>
    `  ${name}: ${side.rps} req/s, p50 ${side.p50} ms, p99 ${side.p99} ms, ${side.databaseCpuUsPerRequest ?? '?'} µs MariaDB CPU per request`;
  console.log(line('no endpoint', result.none));
  console.log(line(`${result.endpoints} endpoints, ${result.pendingDeliveries} pending deliveries`, result.crowded));
  console.log(`  p50 ratio (with / without): ${(result.crowded.p50 / Math.max(1, result.none.p50)).toFixed(2)}`);
  return result;
}

function machineLine() {
  return `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

/** Warm-up for both, then short alternating rounds, so a burst of other load on the machine hits both sides alike. */
async function compare(service, reference, scenario, index, roundCount = ROUNDS) {
  const targets = index % 2 === 0 ? [service, reference] : [reference, service];
  for (const target of targets) await run(target, scenario, WARMUP_S);
  const rounds = new Map(targets.map((target) => [target, []]));
  for (let round = 0; round < roundCount; round++) {
    for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
      rounds.get(target).push(await measure(target, scenario.sampleMemory, () => run(target, scenario, DURATION_S / roundCount)));
    }
  }
  const row = {
    scenario: scenario.name,
    connections: scenario.connections,
    service: combine(rounds.get(service)),
    reference: combine(rounds.get(reference)),
  };
  row.ratio = ratio(row.service, row.reference);
  const eachRound = (target) =>
    rounds
      .get(target)
      .map((r) => `${r.rps}@${r.p50}/${r.p99}`)
      .join(' ');
  console.log(
    `${row.scenario}: ${service.name} ${row.service.rps} req/s, ${reference.name} ${row.reference.rps} req/s, ratio ${row.ratio}` +
      ` (rounds, req/s@p50/p99 ms: ${eachRound(service)}; ${eachRound(reference)})`,
  );
  for (const [name, side] of [
    ['service', row.service],
    [reference.name, row.reference],
  ]) {
    // A side that answers errors fast would look fast: its numbers do not count.
    if (side.non2xx + side.errors > 0)
      console.log(
        `  WARNING: ${name} answered ${side.non2xx} non-2xx (${JSON.stringify(side.statuses)}) and had ${side.errors} errors; this row's ratio is not valid`,
      );
  }
  return row;
}

/**
 * The mixed scenario at a fixed offered load (constant-rate.mjs: latency from each request's due time), each side
 * after a short warm-up at the same rate, in two rounds of half the time each, alternating (ABBA): p50, p99 and p99.9
 * of each side's requests, and each round's, so that neither side always runs first, right after the saturating
 * scenarios, on a database still busy with what they wrote. Both databases are seeded anew first.
 */
async function fixedLoadSection(admin, service, reference, rate) {
  console.log(
    `\nFixed load: mixed 70/20/10 at ${rate} req/s (half the conventional service's maximum), ${FIXED_SECONDS} s per side in two rounds (ABBA):`,
  );
  // The scenarios before left the service's relay events to publish: it starts with none, as the other side.
  for (let waited = 0; waited < 60_000; waited += 250) {
    if ((await waitingForBroker(admin, SERVICE_DB)) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  // And from the same rows: the faster side wrote 2–3 times as many tickets, history entries and changes in the
  // saturating scenarios, which the other would not have to read past or flush.
  for (const db of [SERVICE_DB, REFERENCE_DB]) await seedTickets(admin, db, SEEDED);
  const rounds = new Map([service, reference].map((target) => [target, []]));
  for (const target of [service, reference, reference, service]) {
    const load = (seconds) => constantRate({ url: target.url, rate, seconds, next: () => mixedRequest(SEEDED) });
    if (rounds.get(target).length === 0) await load(WARMUP_S);
    rounds.get(target).push(await load(FIXED_SECONDS / 2));
  }
  const rows = [];
  for (const [target, runs] of rounds) {
    const { samples: _, ...result } = combined(runs);
    console.log(
      `${target.name}: p50 ${result.p50} ms, p99 ${result.p99} ms, p99.9 ${result.p999} ms, max ${result.max} ms (${result.requests} requests, ${result.non2xx + result.errors} failed; ` +
        `rounds p50/p99/p99.9 ms: ${runs.map((run) => `${run.p50}/${run.p99}/${run.p999}`).join(', ')})`,
    );
    for (const [method, m] of Object.entries(result.methods))
      console.log(`  ${method}: ${m.requests} requests, p50 ${m.p50} ms, p99 ${m.p99} ms, p99.9 ${m.p999} ms`);
    if (SHOW_SLOWEST)
      console.log(
        `  slowest (due at s: ms): ${result.slowest.map((r) => `round ${r.round} ${(r.atMs / 1000).toFixed(2)}: ${r.latencyMs}`).join(', ')}`,
      );
    rows.push({ side: target.name, ...result, rounds: runs.map(({ samples: _, ...run }) => run) });
  }
  // What the host adds to any tail at this rate: a bare server, one round (bench/host-floor.mjs).
  const floor = await hostFloor({ rate, seconds: FIXED_SECONDS / 2 });
  console.log(`bare node:http (the host's floor): ${floorLine(floor)}`);
  rows.push({ side: 'bare node:http', ...floor });
  return rows;
}

/** The unpaged list on SCALE_ROWS tickets, the same rows in both databases: the service, then the conventional service. */
async function scaleSection(admin, service, reference) {
  console.log(`\nScale: GET /api/tickets on ${SCALE_ROWS} tickets, the service and then the conventional service:`);
  await seedScale(admin, SERVICE_DB, [REFERENCE_DB], SCALE_ROWS);
  return withScaleBufferPool(admin, [SERVICE_DB, REFERENCE_DB], async (bufferPoolMb) => {
    console.log(`InnoDB buffer pool: ${bufferPoolMb} MB`);
    const sides = [];
    for (const target of [service, reference]) sides.push(await scaleSide(target, SCALE_ROWS));
    return { rows: SCALE_ROWS, bufferPoolMb, sides };
  });
}

/**
 * GET by id on the service against a Nest app that does nothing but the query (bench/nest-ceiling.mjs) and against
 * node:http and mysql2 alone (bench/raw-reference.mjs); then that Nest app against the same raw reference: how much of
 * the raw reference's rate the stack itself keeps, with nothing in it (its row lists the Nest app as the service).
 */
async function compareFloors(service) {
  const [getById] = scenarios(SEEDED);
  const ceiling = await startProcess('ceiling', ['bench/nest-ceiling.mjs'], {
    cwd: root,
    port: CEILING_PORT,
    env: { DB_DATABASE: REFERENCE_DB },
  });
  let raw;
  try {
    raw = await startProcess('raw node:http', ['bench/raw-reference.mjs'], {
      cwd: root,
      port: RAW_PORT,
      env: { DB_DATABASE: REFERENCE_DB },
    });
    return [
      await compare(service, ceiling, { ...getById, name: 'GET by id vs the ceiling (bare Nest + mysql2)' }, 0),
      await compare(service, raw, { ...getById, name: 'GET by id vs raw node:http + mysql2' }, 0),
      await compare(ceiling, raw, { ...getById, name: 'bare Nest + mysql2 (as service) vs raw node:http + mysql2' }, 0),
    ];
  } finally {
    await raw?.stop();
    await ceiling.stop();
  }
}

/** Sustained creates on the service, then on the same build publishing straight after commit, with no outbox. */
async function compareOutbox(service, admin) {
  console.log(`\nOutbox: ${OUTBOX_SECONDS} s of POST load (64 connections) with the outbox, then without it:`);
  const options = { admin, database: SERVICE_DB, broker: BROKER, seconds: OUTBOX_SECONDS, warmupS: WARMUP_S };
  const withOutbox = await sustainedCreates(service, options);
  const env = { DB_DATABASE: SERVICE_DB, ...BROKER };
  const direct = await startProcess('publish after commit', ['bench/direct-publish-service.mjs'], { cwd: root, port: DIRECT_PORT, env });
  let withoutOutbox;
  try {
    withoutOutbox = await sustainedCreates(direct, options);
  } finally {
    await direct.stop();
  }
  const cost = Number((1 - withOutbox.rps / withoutOutbox.rps).toFixed(3));
  console.table([withOutbox, withoutOutbox]);
  console.log(`The outbox costs ${(cost * 100).toFixed(1)} % of write throughput.`);
  return { withOutbox, withoutOutbox, throughputCost: cost };
}

function run(target, scenario, seconds) {
  return autocannon({
    url: target.url,
    connections: scenario.connections,
    duration: seconds,
    requests: scenario.requests,
  });
}

main().catch((error) => {
  console.error(`Benchmark failed: ${error.stack ?? error}`);
  process.exitCode = 1;
});
