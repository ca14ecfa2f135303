// `npm run build && node bench/request-logging.mjs`: the CPU time the request logger costs per request, measured
// without HTTP, database or broker noise: the service's own request log and logger options (dist/logging) on
// synthetic request/response pairs, writing JSON lines to /dev/null, against the same with LOG_LEVEL=silent (request
// id and request context still made, no line written). Compare with the service's CPU time per request.
import { EventEmitter } from 'node:events';
import pino from 'pino';
import { loggerOptions } from '../dist/logging/logger-options.js';
import { requestLog } from '../dist/logging/request-log.js';

const REQUESTS = 200_000;
const ROUNDS = 3;

function exchange(i) {
  const req = Object.assign(new EventEmitter(), {
    method: 'GET',
    url: `/api/tickets/${i}?status=OPEN`,
    originalUrl: `/api/tickets/${i}?status=OPEN`,
    headers: { host: 'localhost:8080', 'x-request-id': i % 2 ? `client-${i}` : undefined },
  });
  const headers = {};
  const res = Object.assign(new EventEmitter(), {
    statusCode: 200,
    writableEnded: true,
    req,
    setHeader: (name, value) => (headers[name] = value),
    getHeader: (name) => headers[name],
  });
  return { req, res };
}

function microsecondsPerRequest(level) {
  const destination = pino.destination({ dest: '/dev/null', sync: true });
  const log = requestLog(pino(loggerOptions({ level, format: 'json' }), destination), destination);
  const start = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) {
    const { req, res } = exchange(i);
    log(req, res, () => undefined);
    res.emit('close');
  }
  const { user, system } = process.cpuUsage(start);
  return (user + system) / REQUESTS;
}

const results = { info: [], silent: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const level of round % 2 ? ['silent', 'info'] : ['info', 'silent']) results[level].push(microsecondsPerRequest(level));
}
const best = (values) => Math.min(...values).toFixed(1);
console.log(`request logger, CPU per request (best of ${ROUNDS} × ${REQUESTS} requests):`);
console.log(`  LOG_LEVEL=info (one JSON line written): ${best(results.info)} µs`);
console.log(`  LOG_LEVEL=silent (id and request context only): ${best(results.silent)} µs`);
