import { EventConsumer } from '../support/event-consumer.js';
import { GaleraCluster } from '../support/clusters/galera-cluster.js';
import { deliveryReport, heldPartitions, received, waitForEvenSplit, writeTickets } from '../support/delivery.js';
import { waitUntil } from '../support/waits.js';
import { ServiceProcess } from '../support/service-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { reportMeasurement } from './measurements.js';

const TTL_MS = 3_000;
const PARTITIONS = 8;

/**
 * Two replicas of the service, each on its own node of a 3-node Galera cluster, relaying one outbox. GET_LOCK is
 * node-local there: with it both replicas published at once (hundreds of duplicates per thousand writes). Events
 * go to the machine's RabbitMQ under the run's own exchange and queue.
 */
describe('Outbox relay on a 3-node MariaDB Galera cluster', () => {
  const galera = new GaleraCluster();
  let consumer: EventConsumer;
  const started: ServiceProcess[] = [];

  /** A replica on Galera node `node`; the first one started creates the database and runs the migrations. */
  const replica = async (node: number, env: Record<string, string> = {}) => {
    const service = await ServiceProcess.start(
      {
        DB_HOST: '127.0.0.1',
        DB_PORT: String(galera.nodes[node].port),
        OUTBOX_LEASE_TTL_MS: String(TTL_MS),
        OUTBOX_PARTITIONS: String(PARTITIONS),
        ...env,
      },
      60_000,
    );
    started.push(service);
    return service;
  };

  beforeAll(async () => {
    await galera.start();
    consumer = await EventConsumer.start();
  }, 300_000);

  afterEach(async () => {
    for (const service of started.splice(0)) {
      service.kill('SIGCONT');
      await service.stop();
    }
  });

  afterAll(async () => {
    await consumer?.stop();
    await galera.stop();
  });

  /** Samples both replicas' partitions until `done` settles; fails if one partition is ever held by both. */
  async function watchOwners<T>(replicas: ServiceProcess[], done: Promise<T>): Promise<{ result: T; overlaps: string[] }> {
    const overlaps: string[] = [];
    let finished = false;
    const watching = (async () => {
      while (!finished) {
        const held = await Promise.all(replicas.map((service) => heldPartitions(service.url).catch(() => [] as number[])));
        const both = held[0].filter((partition) => held[1].includes(partition));
        if (both.length > 0) overlaps.push(`partition(s) ${both.join(', ')} held by both`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      return { result: await done, overlaps };
    } finally {
      finished = true;
      await watching;
    }
  }

  it('delivers 1,000 writes made through two replicas on two nodes once each, in order, with each partition held by one replica', async () => {
    const a = await replica(0);
    const b = await replica(1);
    await waitForEvenSplit([a, b], PARTITIONS, 20_000);

    // 500 writes through each replica: 50 tickets each, a create and 9 updates apiece.
    const { result: written, overlaps } = await watchOwners(
      [a, b],
      Promise.all([writeTickets([a], 50, 9, { rotate: false }), writeTickets([b], 50, 9, { rotate: false })]),
    );
    const acknowledged = new Map([...written[0], ...written[1]]);
    expect([...acknowledged.values()].reduce((sum, n) => sum + n, 0)).toBe(1_000);
    await consumer.waitFor(() => deliveryReport(received(consumer.bodies()), acknowledged).lost === 0, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const report = deliveryReport(received(consumer.bodies()), acknowledged);
    reportMeasurement('galera.two-replicas', { writes: 1_000, ...report });
    expect(overlaps).toEqual([]);
    expect(report).toEqual({ lost: 0, duplicates: 0, outOfOrder: [] });
  });

  it('hands the partitions of a replica killed mid-stream to the other within TTL + 1 s, losing nothing', async () => {
    const a = await replica(0);
    const b = await replica(1);
    await waitForEvenSplit([a, b], PARTITIONS, 20_000);

    const writing = writeTickets([b], 60, 5, { rotate: false });
    await new Promise((resolve) => setTimeout(resolve, 500));
    a.kill('SIGKILL');
    const killedAt = Date.now();
    await waitUntil(async () => (await heldPartitions(b.url)).length === PARTITIONS, TTL_MS + 1_500, 'takeover');
    const takeoverMs = Date.now() - killedAt;

    const acknowledged = await writing;
    await consumer.waitFor(() => deliveryReport(received(consumer.bodies()), acknowledged).lost === 0, 60_000);
    const report = deliveryReport(received(consumer.bodies()), acknowledged);
    reportMeasurement('galera.replica-killed', { ttlMs: TTL_MS, takeoverMs, ...report });
    expect(takeoverMs).toBeLessThanOrEqual(TTL_MS + 1_000);
    expect([report.lost, report.outOfOrder]).toEqual([0, []]);
  });

  it('fences a replica paused past its lease: it marks nothing when it resumes, and no event is lost', async () => {
    const slowBroker = await TcpProxy.start(Number(new URL(process.env.RABBITMQ_URL ?? 'amqp://127.0.0.1:5672').port || 5672));
    try {
      slowBroker.delayMs = 600;
      const a = await replica(0, { RABBITMQ_URL: `amqp://guest:guest@127.0.0.1:${slowBroker.port}` });
      const b = await replica(1);
      await waitForEvenSplit([a, b], PARTITIONS, 20_000);

      const acknowledged = await writeTickets([a], 40, 0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      a.kill('SIGSTOP');
      await waitUntil(async () => (await heldPartitions(b.url)).length === PARTITIONS, TTL_MS + 3_000, 'takeover of a paused replica');
      await consumer.waitFor(() => deliveryReport(received(consumer.bodies()), acknowledged).lost === 0, 30_000);
      a.kill('SIGCONT');

      await waitUntil(() => /Lease lost before marking \d+ published event/.test(a.output), 15_000, "a's fenced mark");
      const report = deliveryReport(received(consumer.bodies()), acknowledged);
      reportMeasurement('galera.paused-replica', report);
      expect([report.lost, report.outOfOrder]).toEqual([0, []]);
    } finally {
      await slowBroker.stop();
    }
  });
});
