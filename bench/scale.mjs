// The scale section of `npm run bench`: the unpaged v1 list (GET /api/tickets, every ticket) on BENCH_SCALE_ROWS
// tickets (default 1,000,000), the same rows in the service's and the conventional service's databases, measured
// on one side and then on the other: first byte and whole answer of one request, peak RSS growth over the idle
// process for one request and for four at once, each of the four's status and time, and the p99 of GET by id sent
// at a constant rate meanwhile.
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { seedTickets } from './seed.mjs';

export const SCALE_ROWS = Number(process.env.BENCH_SCALE_ROWS ?? 1_000_000);
/**
 * The InnoDB buffer pool the section runs with (BENCH_SCALE_BUFFER_POOL_MB, default 2048; 0 keeps the server's):
 * large enough for both databases' million tickets (about 1 GB), as a database serving them would be sized.
 * MariaDB's default of 128 MB would have every list read the table through it from the disk cache, and GET by id
 * wait for a free page behind four such scans. Set for the section only, then put back.
 */
export const SCALE_BUFFER_POOL_MB = Number(process.env.BENCH_SCALE_BUFFER_POOL_MB ?? 2048);
/** GET by id sent meanwhile, per second (a constant rate, see constant-rate.mjs). */
const BY_ID_RATE = 50;
const RSS_SAMPLE_MS = 20;
const CHUNK = 100_000;

/**
 * `rows` tickets by bulk SQL (MariaDB's SEQUENCE engine), one in ten OPEN, in `database`, then copied to each of
 * `copies`. Their ids are given (1..rows): a bulk insert's auto-increment leaves gaps, and GET by id picks ids in that range.
 */
export async function seedScale(admin, database, copies, rows) {
  const started = Date.now();
  // Named: the table (the copies' is cloned from the service's) computes some columns of its own (requester_key,
  // requester_domain), which an INSERT may not give.
  const columns = 'id, title, description, status, priority, requester_email, assigned_to, created_at, updated_at';
  for (const db of [database, ...copies]) await seedTickets(admin, db, 0);
  for (let from = 1; from <= rows; from += CHUNK) {
    const to = Math.min(rows, from + CHUNK - 1);
    await admin.query(`
      INSERT INTO \`${database}\`.tickets (${columns})
      SELECT seq, CONCAT('Ticket ', seq, ': printer on floor ', seq % 12, ' jams'),
             CONCAT('Paper is stuck in tray ', seq % 4, '; the printer shows error E', seq % 97, '. Reported from desk ', seq, '.'),
             IF(seq % 10 = 0, 'OPEN', ELT(1 + seq % 4, 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED')),
             ELT(1 + seq % 4, 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'),
             CONCAT('user', seq % 500, '@example.com'),
             IF(seq % 3 = 0, NULL, CONCAT('desk-', seq % 7)),
             TIMESTAMP'2026-01-01 00:00:00' + INTERVAL seq SECOND,
             TIMESTAMP'2026-01-01 00:00:00' + INTERVAL seq SECOND + INTERVAL 0.123 SECOND
      FROM \`${database}\`.seq_${from}_to_${to}`);
  }
  for (const db of copies) await admin.query(`INSERT INTO \`${db}\`.tickets (${columns}) SELECT ${columns} FROM \`${database}\`.tickets`);
  console.log(`Seeded ${rows} tickets in ${[database, ...copies].join(' and ')} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/**
 * Runs `work` with the buffer pool at SCALE_BUFFER_POOL_MB (when larger than the server's), the tickets of
 * `databases` read into it once (as a serving database's would be), then restores it.
 */
export async function withScaleBufferPool(admin, databases, work) {
  const [[{ size }]] = await admin.query('SELECT @@innodb_buffer_pool_size AS size');
  const wanted = SCALE_BUFFER_POOL_MB * 2 ** 20;
  if (wanted <= Number(size)) return work(mb(Number(size)));
  await admin.query('SET GLOBAL innodb_buffer_pool_size = ?', [wanted]);
  try {
    for (const db of databases) await admin.query(`SELECT SUM(LENGTH(description)) FROM \`${db}\`.tickets`);
    return await work(SCALE_BUFFER_POOL_MB);
  } finally {
    await admin.query('SET GLOBAL innodb_buffer_pool_size = ?', [Number(size)]);
  }
}

/** One side's numbers: idle RSS, one request, then four at once with GET by id at a constant rate meanwhile. */
export async function scaleSide(target, rows) {
  const url = `${target.url}/api/tickets`;
  const idle = await idleRss(target.pid);
  const one = await withPeakRss(target.pid, () => fetchAll(url));
  let byId;
  const four = await withPeakRss(target.pid, async () => {
    const requests = Promise.all([0, 1, 2, 3].map(() => fetchAll(url)));
    const worker = new Worker(new URL('./constant-rate-worker.mjs', import.meta.url), {
      workerData: { url: target.url, rate: BY_ID_RATE, rows },
    });
    const measured = once(worker, 'message');
    try {
      return await requests;
    } finally {
      worker.postMessage('stop');
      [byId] = await measured;
      await worker.terminate();
    }
  });
  const result = {
    side: target.name,
    idleRssMb: mb(idle),
    one: { ...one.value, peakRssGrowthMb: mb(one.peak - idle) },
    four: {
      statuses: four.value.map((r) => r.status),
      totalMs: four.value.map((r) => r.totalMs),
      slowestVsOne: Number((Math.max(...four.value.map((r) => r.totalMs)) / one.value.totalMs).toFixed(2)),
      peakRssGrowthMb: mb(four.peak - idle),
    },
    byIdDuringFour: byId,
  };
  console.log(
    `${target.name}: one request ${one.value.status}, first byte ${one.value.firstByteMs} ms, whole ${one.value.totalMs} ms (${mb(one.value.bytes)} MB), ` +
      `peak RSS +${result.one.peakRssGrowthMb} MB; four at once ${result.four.statuses.join('/')} in ${result.four.totalMs.join('/')} ms ` +
      `(slowest ${result.four.slowestVsOne}× one), peak RSS +${result.four.peakRssGrowthMb} MB; GET by id meanwhile p99 ${byId.p99} ms (${byId.requests} at ${BY_ID_RATE}/s, ${byId.non2xx + byId.errors} failed)`,
  );
  return result;
}

/**
 * The whole answer read as fast as the client can: status, time to its first body byte, to its end, and bytes. A
 * request that fails (the connection closed, the process gone) is answered as status 'failed', not thrown.
 */
function fetchAll(url) {
  return new Promise((resolve) => {
    const started = performance.now();
    let firstByteMs;
    let bytes = 0;
    const failed = (error) =>
      resolve({ status: `failed (${error.code ?? error.message})`, firstByteMs, totalMs: Math.round(performance.now() - started), bytes });
    const request = http.get(url, { agent: false }, (response) => {
      response.on('data', (chunk) => {
        firstByteMs ??= Math.round(performance.now() - started);
        bytes += chunk.length;
      });
      response.on('end', () => {
        if (!response.complete) return failed(new Error('incomplete'));
        resolve({ status: response.statusCode, firstByteMs, totalMs: Math.round(performance.now() - started), bytes });
      });
      response.on('error', failed);
      response.on('close', () => response.complete || failed(new Error('closed before its end')));
    });
    request.on('error', failed);
  });
}

async function withPeakRss(pid, work) {
  let peak = await rss(pid);
  const timer = setInterval(
    () =>
      rss(pid).then(
        (value) => (peak = Math.max(peak, value)),
        () => undefined,
      ),
    RSS_SAMPLE_MS,
  );
  try {
    const value = await work();
    return { value, peak: Math.max(peak, await rss(pid)) };
  } finally {
    clearInterval(timer);
  }
}

/** The process's RSS at rest: the lowest of a second's samples. */
async function idleRss(pid) {
  let lowest = Infinity;
  for (let i = 0; i < 10; i++) {
    lowest = Math.min(lowest, await rss(pid));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return lowest;
}

async function rss(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

const mb = (bytes) => Math.round(bytes / 2 ** 20);
