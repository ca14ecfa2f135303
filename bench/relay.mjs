// The relay benchmark (npm run bench:relay): how fast 1 and 2 replicas publish a backlog, and what a replica's
// crash costs. Events are written straight into the change log in one transaction (as a burst of writes would leave
// them), then timed until a consumer of the exchange has every one. The failover case kills (SIGKILL) one of two
// replicas while they publish and reports the gap (kill until the survivor holds every partition), the events
// published twice and that none was lost. Options: --events=<n> (default 20000), --ttl=<ms> (lease TTL, default
// the service's 10000).
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import amqp from 'amqplib';
import { removeBrokerObjects } from './broker.mjs';
import { assertPortFree, startProcess } from './process.mjs';
import { adminConnection, dropDatabases } from './seed.mjs';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const EVENTS = arg('events', 20_000);
const TTL_MS = arg('ttl', 10_000);
const PARTITIONS = 8;
const DB = 'tickets_bench_relay';
const BROKER = {
  RABBITMQ_EXCHANGE: 'ticket.bench.relay.exchange',
  RABBITMQ_QUEUE: 'ticket.bench.relay.queue',
  RABBITMQ_ROUTING_KEY: 'ticket.bench.relay',
};
const PORTS = [18090, 18091];
const root = fileURLToPath(new URL('..', import.meta.url));
const env = { DB_DATABASE: DB, ...BROKER, OUTBOX_LEASE_TTL_MS: String(TTL_MS), OUTBOX_PARTITIONS: String(PARTITIONS), LOG_LEVEL: 'warn' };

async function main() {
  for (const port of PORTS) await assertPortFree(port);
  const admin = await adminConnection();
  const rows = [];
  try {
    for (const replicas of [1, 2]) rows.push(await throughput(admin, replicas));
    const failover = await crashDuringPublishing(admin);
    console.log(`\nRelay: ${EVENTS} events of ~1 KB over ${PARTITIONS} partitions, lease TTL ${TTL_MS} ms\n`);
    console.log('| replicas | drained in | events/s |\n|---|---|---|');
    for (const row of rows) console.log(`| ${row.replicas} | ${row.ms} ms | ${row.perSecond} |`);
    console.log(
      `\nOne of 2 replicas killed while publishing: survivor held every partition ${failover.gapMs} ms after the kill; ` +
        `${failover.duplicates} event(s) published twice; ${failover.lost} lost; all delivered ${failover.drainedMs} ms after the kill.`,
    );
  } finally {
    await dropDatabases(admin, [DB]);
    await admin.end();
    await removeBrokerObjects(BROKER);
  }
}

async function throughput(admin, replicas) {
  const { services, consumer } = await setUp(admin, replicas);
  try {
    const started = await recordBacklog(admin);
    await consumer.waitForDistinct(EVENTS);
    const ms = Math.round(performance.now() - started);
    return { replicas, ms, perSecond: Math.round(EVENTS / (ms / 1000)) };
  } finally {
    await tearDown(services, consumer);
  }
}

async function crashDuringPublishing(admin) {
  const { services, consumer } = await setUp(admin, 2);
  try {
    await recordBacklog(admin);
    await consumer.waitForDistinct(Math.floor(EVENTS / 5));
    const killedAt = performance.now();
    services[0].kill('SIGKILL');
    let gapMs;
    while (gapMs === undefined) {
      if ((await held(services[1])).length === PARTITIONS) gapMs = Math.round(performance.now() - killedAt);
      else await sleep(20);
    }
    await consumer.waitForDistinct(EVENTS);
    return {
      gapMs,
      drainedMs: Math.round(performance.now() - killedAt),
      duplicates: consumer.arrivals - consumer.distinct.size,
      lost: EVENTS - consumer.distinct.size,
    };
  } finally {
    await tearDown(services, consumer);
  }
}

/** A fresh database, the replicas started one after the other (the first migrates), leases settled. */
async function setUp(admin, replicas) {
  await dropDatabases(admin, [DB]);
  const consumer = await startConsumer();
  const services = [];
  for (let i = 0; i < replicas; i++)
    services.push(await startProcess(`replica ${i + 1}`, ['dist/main.js'], { cwd: root, port: PORTS[i], env }));
  for (;;) {
    const shares = await Promise.all(services.map(held));
    if (shares.every((share) => share.length === PARTITIONS / replicas)) break;
    await sleep(100);
  }
  return { services, consumer };
}

async function tearDown(services, consumer) {
  await Promise.all(services.map((service) => service.stop()));
  await consumer.close();
}

/** EVENTS change-log rows over 2,000 tickets, committed together; returns when the commit returned. */
async function recordBacklog(admin) {
  const payload = 'x'.repeat(900);
  await admin.query(`USE \`${DB}\``);
  await admin.query('START TRANSACTION');
  for (let start = 0; start < EVENTS; start += 1000) {
    const values = [];
    for (let i = start; i < Math.min(EVENTS, start + 1000); i++) {
      const ticketId = (i % 2000) + 1;
      const eventId = randomUUID();
      values.push([
        eventId,
        'UPDATED',
        ticketId,
        ticketId % PARTITIONS,
        JSON.stringify({ eventId, eventType: 'UPDATED', ticketId, payload }),
        new Date(),
      ]);
    }
    await admin.query('INSERT INTO change_log (event_id, event_type, ticket_id, partition_no, payload, occurred_at) VALUES ?', [values]);
  }
  await admin.query('COMMIT');
  return performance.now();
}

async function held(service) {
  const response = await fetch(`${service.url}/actuator/health/outbox`);
  return (await response.json()).details.partitionsHeld;
}

async function startConsumer() {
  const connection = await amqp.connect(process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
  const channel = await connection.createChannel();
  await channel.assertExchange(BROKER.RABBITMQ_EXCHANGE, 'topic', { durable: true });
  const { queue } = await channel.assertQueue(`ticket.bench.relay.consumer.${randomUUID()}`, { exclusive: true });
  await channel.bindQueue(queue, BROKER.RABBITMQ_EXCHANGE, '#');
  const consumer = {
    distinct: new Set(),
    arrivals: 0,
    async waitForDistinct(count) {
      const deadline = performance.now() + 120_000;
      while (consumer.distinct.size < count) {
        if (performance.now() > deadline) throw new Error(`only ${consumer.distinct.size} of ${count} events arrived`);
        await sleep(10);
      }
    },
    close: () => connection.close(),
  };
  await channel.consume(
    queue,
    (message) => {
      consumer.arrivals++;
      consumer.distinct.add(message.properties.messageId);
    },
    { noAck: true },
  );
  return consumer;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
