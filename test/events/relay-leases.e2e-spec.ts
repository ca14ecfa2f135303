import { EventConsumer } from '../support/event-consumer.js';
import { deliveryReport, heldPartitions, received, waitForEvenSplit, waitUntil, writeTickets } from '../support/delivery.js';
import { ServiceProcess } from '../support/service-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const TTL_MS = 2_000;
const PARTITIONS = 8;
const relaySettings = { OUTBOX_LEASE_TTL_MS: String(TTL_MS), OUTBOX_PARTITIONS: String(PARTITIONS) };

async function allDelivered(consumer: EventConsumer, acknowledged: Map<number, number>): Promise<void> {
  await consumer.waitFor(() => deliveryReport(received(consumer.bodies()), acknowledged).lost === 0, 30_000);
}

describe('Outbox relay leases across replicas', () => {
  let consumer: EventConsumer;
  const started: ServiceProcess[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const service = await ServiceProcess.start({ ...relaySettings, ...env });
    started.push(service);
    return service;
  };

  beforeAll(async () => {
    consumer = await EventConsumer.start();
  });

  afterEach(async () => {
    for (const service of started.splice(0)) {
      service.kill('SIGCONT');
      await service.stop();
    }
  });

  afterAll(async () => {
    await consumer.stop();
  });

  it('splits the partitions between two replicas, each holding its fair share and none held twice', async () => {
    const [a, b] = [await start(), await start()];
    await waitForEvenSplit([a, b], PARTITIONS, 10_000);
    const [heldByA, heldByB] = [await heldPartitions(a.url), await heldPartitions(b.url)];
    expect([...heldByA, ...heldByB].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);

    const acknowledged = await writeTickets([a, b], 40, 4);
    await allDelivered(consumer, acknowledged);
    expect(deliveryReport(received(consumer.bodies()), acknowledged)).toEqual({ lost: 0, duplicates: 0, outOfOrder: [] });
  });

  it('hands the partitions of a killed replica to the survivor once their leases expire, losing nothing', async () => {
    const [a, b] = [await start(), await start()];
    await waitForEvenSplit([a, b], PARTITIONS, 10_000);

    // Writes go through b while a is killed mid-stream; a's partitions have events waiting when it dies.
    const writing = writeTickets([b], 60, 5);
    await new Promise((resolve) => setTimeout(resolve, 300));
    a.kill('SIGKILL');
    await a.exited;
    // The leases a held run out within the TTL, and b looks every poll (0.5 s) for expired ones. The cluster suite
    // holds this to TTL + 1 s; here b also serves the writes on a machine the whole suite shares, so 2 s of slack.
    await waitUntil(async () => (await heldPartitions(b.url)).length === PARTITIONS, TTL_MS + 2_000, 'takeover within TTL + 2 s');

    const acknowledged = await writing;
    await allDelivered(consumer, acknowledged);
    const report = deliveryReport(received(consumer.bodies()), acknowledged);
    expect([report.lost, report.outOfOrder]).toEqual([0, []]);
  });

  it('fences a relay paused past its lease: after it resumes, its deletes change nothing and no event is lost', async () => {
    // a reaches the broker through a slow proxy, so it is still waiting for confirms when it is paused.
    const slowBroker = await TcpProxy.start(5672);
    try {
      slowBroker.delayMs = 600;
      const a = await start({ RABBITMQ_URL: `amqp://guest:guest@127.0.0.1:${slowBroker.port}` });
      const b = await start();
      await waitForEvenSplit([a, b], PARTITIONS, 15_000);
      const heldByA = new Set(await heldPartitions(a.url));

      const acknowledged = await writeTickets([a], 40, 0);
      const ofA = [...acknowledged.keys()].filter((id) => heldByA.has(id % PARTITIONS));
      expect(ofA.length).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      a.kill('SIGSTOP');

      // b takes a's partitions over and publishes their events itself.
      await waitUntil(async () => (await heldPartitions(b.url)).length === PARTITIONS, TTL_MS + 3_000, 'takeover of a paused relay');
      await allDelivered(consumer, acknowledged);
      a.kill('SIGCONT');

      // a's confirms arrive; its fenced delete finds the lease gone and deletes nothing.
      await waitUntil(() => /Lease lost before deleting \d+ published event/.test(a.output), 10_000, "a's fenced delete");
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const report = deliveryReport(received(consumer.bodies()), acknowledged);
      expect([report.lost, report.outOfOrder]).toEqual([0, []]);
    } finally {
      await slowBroker.stop();
    }
  });
});
