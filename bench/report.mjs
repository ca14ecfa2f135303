// Turns autocannon results into the benchmark's numbers, samples a process's memory and CPU time, and prints the table.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';

const RSS_SAMPLE_MS = 50;
// USER_HZ: 100 on Linux for every common architecture.
const CLOCK_TICKS_PER_S = 100;

/** Runs `load` and summarises it; with `sampleMemory`, also the peak resident memory of the target meanwhile. */
export async function measure(target, sampleMemory, load) {
  let peakRss = 0;
  const timer = sampleMemory
    ? setInterval(
        () =>
          rssBytes(target.pid).then(
            (rss) => (peakRss = Math.max(peakRss, rss)),
            () => undefined,
          ),
        RSS_SAMPLE_MS,
      )
    : undefined;
  let measured;
  try {
    measured = await withCpuPerRequest(target.pid, load);
  } finally {
    clearInterval(timer);
  }
  const { result, cpuUsPerRequest, databaseCpuUsPerRequest } = measured;
  return {
    rps: roundRps(result.requests.total / result.duration),
    cpuUsPerRequest,
    databaseCpuUsPerRequest,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    statuses: otherStatuses(result.statusCodeStats),
    errors: result.errors + result.timeouts,
    ...(sampleMemory ? { peakRssMb: Math.round(peakRss / 2 ** 20) } : {}),
  };
}

/**
 * Runs `load` (an autocannon run) and answers its result with the CPU time per request of the process `pid` and of the
 * local database over the same time (only one side is loaded at a time, so it is that side's cost there).
 */
export async function withCpuPerRequest(pid, load) {
  const before = await Promise.all([cpuMs(pid), DATABASE_PID ? cpuMs(DATABASE_PID) : 0]);
  const result = await load();
  const perRequest = (ms) => Math.round((ms * 1000) / Math.max(1, result.requests.total));
  return {
    result,
    cpuUsPerRequest: perRequest((await cpuMs(pid)) - before[0]),
    databaseCpuUsPerRequest: DATABASE_PID ? perRequest((await cpuMs(DATABASE_PID)) - before[1]) : undefined,
  };
}

/** The answers other than 2xx, by status: which ones a side gave says what went wrong (`{ 503: 2 }`). */
function otherStatuses(statusCodeStats = {}) {
  const statuses = {};
  for (const [status, { count }] of Object.entries(statusCodeStats)) if (!status.startsWith('2')) statuses[status] = count;
  return statuses;
}

/** The local database server's process (MariaDB or MySQL), when there is one on this machine. */
const DATABASE_PID = (() => {
  try {
    return Number(execFileSync('pidof', ['-s', 'mariadbd', 'mysqld'], { encoding: 'utf8' }).trim().split(' ')[0]) || undefined;
  } catch {
    return undefined;
  }
})();

/** CPU time (user + system, all threads) the process has used so far, from /proc/<pid>/stat, in ms. */
async function cpuMs(pid) {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS_PER_S);
}

async function rssBytes(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

/** Rounds of one target as one result: req/s over the whole time, mean p50, worst p99, highest memory. */
export function combine(rounds) {
  const sum = (key) => rounds.reduce((total, r) => total + r[key], 0);
  const combined = {
    rps: roundRps(rounds.reduce((total, r) => total + r.rps, 0) / rounds.length),
    p50: Math.round(sum('p50') / rounds.length),
    cpuUsPerRequest: Math.round(sum('cpuUsPerRequest') / rounds.length),
    databaseCpuUsPerRequest: Math.round(sum('databaseCpuUsPerRequest') / rounds.length),
    p99: Math.max(...rounds.map((r) => r.p99)),
    requests: sum('requests'),
    non2xx: sum('non2xx'),
    statuses: {},
    errors: sum('errors'),
  };
  for (const round of rounds)
    for (const [status, count] of Object.entries(round.statuses ?? {}))
      combined.statuses[status] = (combined.statuses[status] ?? 0) + count;
  if (rounds[0].peakRssMb !== undefined) combined.peakRssMb = Math.max(...rounds.map((r) => r.peakRssMb));
  return combined;
}

/** Whole numbers, except below 100 req/s, where a decimal keeps a ratio meaningful (large lists run at a few per second). */
function roundRps(rps) {
  return rps >= 100 ? Math.round(rps) : Number(rps.toFixed(1));
}

export function ratio(service, reference) {
  return reference.rps > 0 ? Number((service.rps / reference.rps).toFixed(2)) : 0;
}

export function printTable(results) {
  const rows = results.map((r) => ({
    scenario: r.scenario,
    conns: r.connections,
    'service req/s': r.service.rps,
    'service p50/p99 ms': `${r.service.p50}/${r.service.p99}`,
    'reference req/s': r.reference.rps,
    'reference p50/p99 ms': `${r.reference.p50}/${r.reference.p99}`,
    ratio: r.ratio,
    'CPU µs/req (svc/ref)': `${r.service.cpuUsPerRequest}/${r.reference.cpuUsPerRequest}`,
    'DB CPU µs/req (svc/ref)': `${r.service.databaseCpuUsPerRequest}/${r.reference.databaseCpuUsPerRequest}`,
    'peak RSS MB (svc/ref)': r.service.peakRssMb === undefined ? '' : `${r.service.peakRssMb}/${r.reference.peakRssMb}`,
    'non-2xx/errors (svc/ref)': `${r.service.non2xx + r.service.errors}/${r.reference.non2xx + r.reference.errors}`,
  }));
  console.table(rows);
}
