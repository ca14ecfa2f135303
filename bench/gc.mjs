// Whether the tail of a fixed load is the service's garbage collector (npm run build && node bench/gc.mjs [--rate=780]
// [--seconds=20] [--requests=mixed|get|post] [--node-flags="--max-semi-space-size=64"]). Starts the built service with --trace-gc-nvp (port 18190,
// database tickets_bench_gc), seeds 10,000 tickets, runs the mixed 70/20/10 scenario at a constant rate (5 s warm-up,
// then the measured seconds) and lines up each major GC (Mark-Compact) with the requests due around it: if the
// slowest requests fall within ~100 ms of a Mark-Compact, the periodic spikes are the collector's. It also says how
// much each request leaves to the old generation (what the scavenges promote), which is what fills it up to the next
// Mark-Compact: about 0 KB a request once nothing of a finished request outlives two scavenges.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeBrokerObjects } from './broker.mjs';
import { constantRate } from './constant-rate.mjs';
import { assertPortFree } from './process.mjs';
import { createRequest, mixedRequest, readRequest } from './scenarios.mjs';
import { adminConnection, dropDatabases, seedTickets } from './seed.mjs';

const option = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const RATE = Number(option('rate', 780));
const SECONDS = Number(option('seconds', 20));
const NODE_FLAGS = option('node-flags', '').split(' ').filter(Boolean);
/** Which requests: the mixed scenario, or GET by id or POST create alone (which of them promotes what the major GCs collect). */
const REQUESTS = option('requests', 'mixed');
const DB = 'tickets_bench_gc';
const PORT = 18190;
const SEEDED = 10_000;
const BROKER = {
  RABBITMQ_EXCHANGE: 'ticket.bench.gc.exchange',
  RABBITMQ_QUEUE: 'ticket.bench.gc.queue',
  RABBITMQ_ROUTING_KEY: 'ticket.bench.gc',
};
/** A request due within this long of a Mark-Compact (before: in flight or queued when it ran; after: queued behind it) counts as caught by it. */
const WINDOW_MS = 100;

await assertPortFree(PORT);
const admin = await adminConnection();
await dropDatabases(admin, [DB]);
const traceFile = join(tmpdir(), `ticket-service-gc-${process.pid}.log`);
const trace = openSync(traceFile, 'w');
const spawnedAt = performance.now();
const service = spawn(process.execPath, ['--trace-gc-nvp', ...NODE_FLAGS, 'dist/main.js'], {
  cwd: fileURLToPath(new URL('..', import.meta.url)),
  env: { ...process.env, ...BROKER, DB_DATABASE: DB, SERVER_PORT: String(PORT), LOG_LEVEL: 'warn' },
  stdio: ['ignore', trace, trace],
});
const url = `http://127.0.0.1:${PORT}`;
try {
  for (let tries = 0; ; tries++) {
    const up = await fetch(`${url}/api/tickets/1`).then(
      (response) => response.arrayBuffer().then(() => true),
      () => false,
    );
    if (up) break;
    if (tries > 120) throw new Error('the service did not start');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await seedTickets(admin, DB, SEEDED);
  const next = { mixed: () => mixedRequest(SEEDED), get: () => readRequest(SEEDED), post: () => createRequest() }[REQUESTS];
  if (!next) throw new Error(`--requests=${REQUESTS}: mixed, get or post`);
  await constantRate({ url, rate: RATE, seconds: 5, next });
  const loadStartedAt = performance.now() - spawnedAt;
  const result = await constantRate({ url, rate: RATE, seconds: SECONDS, next });

  // "[pid:isolate]   12345 ms: pause=9.4 mutator=… gc=mc … total_size_before=… total_size_after=… allocated=… promoted=…":
  // ms since the isolate started, a moment after the spawn (the lines are placed a few ms early, which the window covers).
  const collections = [...(await readFile(traceFile, 'utf8')).matchAll(/\s(\d+) ms: pause=([\d.]+) .*?\bgc=(\w+) .*/g)]
    .map(([line, at, pause, kind]) => ({ line, kind, atMs: Number(at) - loadStartedAt, pauseMs: Number(pause) }))
    .filter(({ atMs }) => atMs >= 0 && atMs <= SECONDS * 1000);
  const field = (line, name) => Number(new RegExp(`\\b${name}=(\\d+)`).exec(line)?.[1] ?? 0);
  const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);
  const majors = collections
    .filter(({ kind }) => kind === 'mc')
    .map(({ line, ...gc }) => ({ ...gc, beforeMb: mb(field(line, 'total_size_before')), afterMb: mb(field(line, 'total_size_after')) }));
  const scavenges = collections.filter(({ kind }) => kind === 's');
  const promoted = scavenges.reduce((sum, { line }) => sum + field(line, 'promoted'), 0);
  const slow = result.slowest;
  const caught = slow.filter(({ atMs }) => majors.some((gc) => Math.abs(atMs - gc.atMs) <= WINDOW_MS));
  console.log(`${REQUESTS} at ${RATE}/s for ${SECONDS} s${NODE_FLAGS.length ? ` (${NODE_FLAGS.join(' ')})` : ''}:`);
  console.log(`  p50 ${result.p50} ms, p99 ${result.p99} ms, p99.9 ${result.p999} ms, max ${result.max} ms`);
  console.log(
    `  ${majors.length} Mark-Compact(s), every ${majors.length > 1 ? ((majors.at(-1).atMs - majors[0].atMs) / (majors.length - 1) / 1000).toFixed(1) : '?'} s; ` +
      `heap ${majors.map((gc) => `${gc.beforeMb}→${gc.afterMb}`).join(', ')} MB, pauses ${majors.map((gc) => gc.pauseMs).join(', ')} ms`,
  );
  console.log(
    `  ${scavenges.length} scavenges promoted ${mb(promoted)} MB: ${(promoted / result.requests / 1024).toFixed(1)} KB a request, ` +
      `${mb(promoted / SECONDS)} MB/s`,
  );
  console.log(`  ${caught.length} of the ${slow.length} slowest requests were due within ${WINDOW_MS} ms of one`);
  console.log(`  Mark-Compacts at s: ${majors.map((gc) => (gc.atMs / 1000).toFixed(2)).join(', ')}`);
  console.log(`  slowest at s: ${[...new Set(slow.map(({ atMs }) => (atMs / 1000).toFixed(1)))].join(', ')}`);
} finally {
  service.kill('SIGTERM');
  await new Promise((resolve) => service.once('exit', resolve));
  await dropDatabases(admin, [DB]);
  await admin.end();
  await removeBrokerObjects(BROKER);
}
