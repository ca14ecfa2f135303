// The outbox benchmark: sustained POST load against the service (transactional outbox + relay) and against
// the same build publishing straight after commit (bench/direct-publish-service.mjs), one after the other.
// Reports write throughput for each, the publish lag (from the 201 reaching the client, which comes after the
// commit, to the CREATED event reaching a consumer; p50/p99) and how long after the load the last event arrives
// and nothing is left waiting for RabbitMQ.
import { performance } from 'node:perf_hooks';
import amqp from 'amqplib';
import autocannon from 'autocannon';
import { createRequest } from './scenarios.mjs';

const CONNECTIONS = 64;
const DRAIN_TIMEOUT_MS = 30_000;

/** Runs `seconds` of POST load on `target` while a consumer of the exchange times every CREATED event. */
export async function sustainedCreates(target, { admin, database, broker, seconds, warmupS }) {
  const consumer = await eventConsumer(broker);
  try {
    await autocannon({ url: target.url, connections: CONNECTIONS, duration: warmupS, requests: [createRequest()] });
    await consumer.waitForQuiet();
    const answered = new Map();
    consumer.reset();
    const result = await autocannon({
      url: target.url,
      connections: CONNECTIONS,
      duration: seconds,
      requests: [
        { ...createRequest(), onResponse: (status, body) => status === 201 && answered.set(JSON.parse(body).id, performance.now()) },
      ],
    });
    const loadEnded = performance.now();
    const lastArrival = await consumer.waitFor([...answered.keys()], DRAIN_TIMEOUT_MS);
    const outboxEmpty = await waitForEmptyOutbox(admin, database, DRAIN_TIMEOUT_MS);
    const lags = [...answered].map(([id, at]) => consumer.arrivals.get(id) - at).sort((a, b) => a - b);
    return {
      target: target.name,
      seconds: result.duration,
      rps: Math.round(result.requests.total / result.duration),
      p50: result.latency.p50,
      p99: result.latency.p99,
      created: answered.size,
      non2xx: result.non2xx + result.errors + result.timeouts,
      lagP50Ms: round(percentile(lags, 0.5)),
      lagP99Ms: round(percentile(lags, 0.99)),
      lastEventAfterMs: round(Math.max(0, lastArrival - loadEnded)),
      outboxEmptyAfterMs: round(Math.max(0, outboxEmpty - loadEnded)),
    };
  } finally {
    await consumer.close();
  }
}

/** When no change waits for RabbitMQ any more (at once for the variant that records none). */
async function waitForEmptyOutbox(admin, database, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const rows = await waitingForBroker(admin, database);
    const now = performance.now();
    if (rows === 0) return now;
    if (now > deadline) throw new Error(`${rows} changes still wait for RabbitMQ ${timeoutMs} ms after the load`);
    await sleep(5);
  }
}

/** Changes of `database` waiting for RabbitMQ: one range of the relay's index per partition. */
export async function waitingForBroker(admin, database) {
  const [[{ rows }]] = await admin.query(
    `SELECT COUNT(*) AS \`rows\` FROM \`${database}\`.change_log WHERE partition_no IN (?) AND relay_status = 'pending'`,
    [EVERY_PARTITION],
  );
  return Number(rows);
}

const EVERY_PARTITION = Array.from({ length: 1024 }, (_, partition) => partition);

/** A consumer on its own queue, bound like the service's: arrival time of each CREATED event by ticket id. */
async function eventConsumer({ RABBITMQ_EXCHANGE, RABBITMQ_ROUTING_KEY }) {
  const connection = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
  const channel = await connection.createChannel();
  const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(queue, RABBITMQ_EXCHANGE, RABBITMQ_ROUTING_KEY);
  const arrivals = new Map();
  let lastSeen = performance.now();
  await channel.consume(
    queue,
    (message) => {
      lastSeen = performance.now();
      const event = JSON.parse(message.content.toString('utf8'));
      if (event.eventType === 'CREATED' && !arrivals.has(event.ticketId)) arrivals.set(event.ticketId, lastSeen);
    },
    { noAck: true },
  );
  return {
    arrivals,
    reset: () => arrivals.clear(),
    /** Until no event has arrived for half a second: the warm-up's events are out of the way. */
    async waitForQuiet() {
      while (performance.now() - lastSeen < 500) await sleep(100);
    },
    /** Resolves with the arrival time of the last of `ids` to arrive, or throws when one is missing. */
    async waitFor(ids, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      while (ids.some((id) => !arrivals.has(id))) {
        if (performance.now() > deadline)
          throw new Error(`${ids.filter((id) => !arrivals.has(id)).length} of ${ids.length} events never arrived`);
        await sleep(5);
      }
      return ids.reduce((last, id) => Math.max(last, arrivals.get(id)), 0);
    },
    close: () => connection.close(),
  };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

const round = (ms) => Number(ms.toFixed(1));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
