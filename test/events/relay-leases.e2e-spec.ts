import { EventConsumer } from '../support/event-consumer.js';
import { deliveryReport, heldPartitions, received, waitForEvenSplit, writeTickets } from '../support/delivery.js';
import { waitUntil } from '../support/waits.js';
import { ServiceProcess } from '../support/service-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

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
    const heldByA = new Set(await heldPartitions(a.url));

    // Writes go through b while a is killed mid-stream, once a has published some of them; a's partitions have
    // events waiting when it dies.
    const before = consumer.messages.length;
    const writing = writeTickets([b], 60, 5);
    const publishedByA = () =>
      consumer.messages.slice(before).filter((message) => heldByA.has(JSON.parse(message.content.toString('utf8')).ticketId % PARTITIONS))
        .length;
    await consumer.waitFor(() => publishedByA() >= 10, 15_000);
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

  it('fences a relay paused past its lease: after it resumes, its marks change nothing and no event is lost', async () => {
    // a reaches the broker through a proxy that holds the broker's confirms back, so it is still waiting for them
    // when it is paused.
    const slowBroker = await TcpProxy.start(5672);
    try {
      const a = await start({ RABBITMQ_URL: `amqp://guest:guest@127.0.0.1:${slowBroker.port}` });
      const b = await start();
      await waitForEvenSplit([a, b], PARTITIONS, 15_000);
      const heldByA = new Set(await heldPartitions(a.url));

      slowBroker.holdReplies();
      const acknowledged = await writeTickets([a], 40, 0);
      const ofA = [...acknowledged.keys()].filter((id) => heldByA.has(id % PARTITIONS));
      expect(ofA.length).toBeGreaterThan(0);
      // One of a's events has reached the broker, whose confirm a has not received: a is waiting for confirms.
      await consumer.waitFor(() => ofA.some((id) => consumer.forTicket(id).length > 0), 10_000);
      a.kill('SIGSTOP');
      slowBroker.releaseReplies();

      // b takes a's partitions over and publishes their events itself.
      await waitUntil(async () => (await heldPartitions(b.url)).length === PARTITIONS, TTL_MS + 3_000, 'takeover of a paused relay');
      await allDelivered(consumer, acknowledged);
      a.kill('SIGCONT');

      // a's confirms arrive; its fenced mark finds the lease gone and marks nothing.
      await waitUntil(() => /Lease lost before marking \d+ published event/.test(a.output), 10_000, "a's fenced mark");
      // A later write on each of a's tickets, through a again: it goes out behind whatever a's partitions still
      // held, so once it has arrived every event before it has, in order.
      for (const id of ofA) {
        const response = await fetch(`${a.url}/api/tickets/${id}`, {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(buildTicketRequest({ title: 'step 1' })),
        });
        expect(response.status).toBe(200);
        acknowledged.set(id, 2);
      }
      await allDelivered(consumer, acknowledged);
      const report = deliveryReport(received(consumer.bodies()), acknowledged);
      expect([report.lost, report.outOfOrder]).toEqual([0, []]);
    } finally {
      await slowBroker.stop();
    }
  });
});
