// A constant-rate load driver: requests are due at fixed times (rate per second), sent when due whatever the
// answers to earlier ones, each on a free keep-alive connection or a new one, and every latency is counted from
// when its request was due, not from when it went out. autocannon (and its overallRate) sends a request only when
// one of its connections is free, so a server that stalls is sent fewer requests meanwhile and the stall counts
// once, not once per request that should have been sent during it ("coordinated omission"): its percentiles
// would flatter the tail this driver is there to measure.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/** At most this many requests in flight; beyond it the driver counts the rest as errors rather than run out of sockets. */
const MAX_IN_FLIGHT = 2_000;

/**
 * Sends `rate` requests per second to `url` for `seconds` (or until the promise `until` settles), each made by
 * `next()` ({ method, path, headers, body }), and answers their latency percentiles in ms (from the due time), with
 * how many were not 2xx or failed.
 */
export async function constantRate({ url, rate, seconds = Infinity, until, next }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const { hostname, port } = new URL(url);
  let total = Math.round(rate * seconds);
  const latencies = [];
  /** When each request was due (ms from the start) and its latency: where in time the slow ones fall. */
  const timeline = [];
  /** The latencies of each method, to tell which kind of request makes the tail. */
  const byMethod = new Map();
  let non2xx = 0;
  let errors = 0;
  let inFlight = 0;
  let sent = 0;
  const start = performance.now() + 10;
  const done = new Promise((resolve) => {
    const finish = () => latencies.length + errors === total && resolve();
    const stop = () => {
      total = sent;
      finish();
    };
    until?.then(stop, stop);
    const send = (due) => {
      if (inFlight >= MAX_IN_FLIGHT) {
        errors++;
        return finish();
      }
      inFlight++;
      const { method, path, headers = {}, body } = next();
      const request = http.request(
        {
          hostname,
          port,
          method,
          path,
          agent,
          headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          response.resume();
          response.on('end', () => {
            inFlight--;
            const latency = performance.now() - due;
            latencies.push(latency);
            timeline.push([due - start, latency]);
            if (!byMethod.has(method)) byMethod.set(method, []);
            byMethod.get(method).push(latency);
            if (response.statusCode < 200 || response.statusCode > 299) non2xx++;
            finish();
          });
        },
      );
      request.on('error', () => {
        inFlight--;
        errors++;
        finish();
      });
      request.end(body);
    };
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + (sent * 1000) / rate <= now) send(start + (sent++ * 1000) / rate);
      if (sent < total) setTimeout(tick, Math.max(0, start + (sent * 1000) / rate - performance.now()));
    };
    setTimeout(tick, 10);
  });
  await done;
  agent.destroy();
  const took = Number(((performance.now() - start) / 1000).toFixed(1));
  // The slowest requests by when they were due, for a look at whether the tail comes in periodic bursts.
  const slowest = timeline
    .sort((a, b) => b[1] - a[1])
    .slice(0, Math.ceil(timeline.length / 1000) * 5)
    .sort((a, b) => a[0] - b[0])
    .map(([at, latency]) => ({ atMs: Math.round(at), latencyMs: Number(latency.toFixed(1)) }));
  const samples = { latencies, byMethod: Object.fromEntries(byMethod) };
  return { rate, seconds: took, requests: total, ...summary(samples), non2xx, errors, slowest, samples };
}

/** Several runs of constantRate (one side's rounds) as one: percentiles over all their requests. */
export function combined(runs) {
  const byMethod = {};
  for (const run of runs)
    for (const [method, values] of Object.entries(run.samples.byMethod)) byMethod[method] = [...(byMethod[method] ?? []), ...values];
  const samples = { latencies: runs.flatMap((run) => run.samples.latencies), byMethod };
  const sum = (key) => runs.reduce((total, run) => total + run[key], 0);
  return {
    rate: runs[0].rate,
    seconds: sum('seconds'),
    requests: sum('requests'),
    ...summary(samples),
    non2xx: sum('non2xx'),
    errors: sum('errors'),
    // Each round's slowest, by when they were due in that round.
    slowest: runs.flatMap((run, i) => run.slowest.map((slow) => ({ round: i + 1, ...slow }))),
    samples,
  };
}

function summary({ latencies, byMethod }) {
  const methods = Object.fromEntries(
    Object.entries(byMethod).map(([method, values]) => [method, { requests: values.length, ...percentiles(values) }]),
  );
  return { ...percentiles(latencies), methods };
}

function percentiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(1));
  return { p50: at(0.5), p99: at(0.99), p999: at(0.999), max: at(1) };
}
