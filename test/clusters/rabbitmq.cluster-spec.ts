import { randomUUID } from 'node:crypto';
import amqp, { type ChannelModel } from 'amqplib';
import { createConnection } from 'mysql2/promise';
import { RabbitCluster } from '../support/clusters/rabbitmq-cluster.js';
import { deliveryReport, received, writeTickets } from '../support/delivery.js';
import { waitUntil } from '../support/waits.js';
import { ServiceProcess } from '../support/service-process.js';
import { reportMeasurement } from './measurements.js';

/**
 * A consumer of a quorum queue that follows the cluster: when its node or the queue's leader goes away it
 * connects again, to the next node. Acknowledges each message after keeping it, so nothing is lost on its side;
 * a message delivered again (redelivered) is counted apart from the service's own duplicates.
 */
class ClusterConsumer {
  readonly bodies: Array<Record<string, any>> = [];
  readonly arrivals: number[] = [];
  redelivered = 0;
  private connection?: ChannelModel;
  private stopped = false;

  constructor(
    private readonly urls: string[],
    private readonly queue: string,
    private node: number,
  ) {}

  async start(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.consume(this.urls[this.node]);
        return;
      } catch {
        this.node = (this.node + 1) % this.urls.length;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.connection?.close().catch(() => undefined);
  }

  private async consume(url: string): Promise<void> {
    const connection = await amqp.connect(url);
    this.connection = connection;
    const again = () => {
      if (this.stopped || this.connection !== connection) return;
      this.connection = undefined;
      connection.close().catch(() => undefined);
      this.node = (this.node + 1) % this.urls.length;
      void this.start();
    };
    connection.on('error', () => undefined);
    connection.on('close', again);
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    await channel.checkQueue(this.queue);
    await channel.prefetch(500);
    await channel.consume(this.queue, (message) => {
      if (!message) return again();
      if (message.fields.redelivered) this.redelivered++;
      this.bodies.push(JSON.parse(message.content.toString('utf8')));
      this.arrivals.push(Date.now());
      channel.ack(message);
    });
  }
}

/**
 * The service against a 3-node RabbitMQ cluster with a quorum queue, given all three addresses; the database is
 * the machine's MariaDB under the run's own database name.
 */
describe('Events on a 3-node RabbitMQ cluster with a quorum queue', () => {
  const cluster = new RabbitCluster();
  const addresses = () => cluster.nodes.map((node) => `127.0.0.1:${node.amqpPort}`);

  beforeAll(async () => {
    await cluster.start();
  }, 300_000);

  afterAll(async () => {
    await cluster.stop();
  });

  /** The node the service's connection is on. */
  async function connectedNode(): Promise<number> {
    let node: number | undefined;
    await waitUntil(async () => (node = await cluster.connectionNode('ticket-service')) !== undefined, 30_000);
    return node!;
  }

  /**
   * 1,000 writes over 100 tickets while node `victim` is killed (kill -9) once 200 events have arrived; every
   * acknowledged write's event must arrive, in order per ticket once duplicates are dropped.
   */
  async function writeThroughFailover({
    name,
    order,
    victim,
    consumerNode,
    declareOn,
    load = (service) => writeTickets([service], 100, 9),
  }: {
    name: string;
    order: number[];
    victim: (queue: string) => Promise<number>;
    consumerNode: number;
    declareOn?: number;
    load?: (service: ServiceProcess) => Promise<Map<number, number>>;
  }) {
    const queue = `ticket.queue.cluster.${randomUUID()}`;
    if (declareOn !== undefined) {
      // Declared through that node first, so the quorum queue's leader is there.
      const connection = await amqp.connect(cluster.amqpUrls[declareOn]);
      await (await connection.createChannel()).assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
      await connection.close();
    }
    const service = await ServiceProcess.start({
      SPRING_RABBITMQ_ADDRESSES: order.map((i) => addresses()[i]).join(','),
      RABBITMQ_URL: cluster.amqpUrls[order[0]],
      RABBITMQ_QUEUE: queue,
      RABBITMQ_QUEUE_TYPE: 'quorum',
    });
    const consumer = new ClusterConsumer(cluster.amqpUrls, queue, consumerNode);
    let killed: number | undefined;
    try {
      await consumer.start();
      const target = await victim(queue);
      const writing = load(service);
      await waitUntil(() => consumer.bodies.length >= 200, 60_000);
      await cluster.kill(target);
      killed = target;
      const killedAt = Date.now();
      const acknowledged = await writing;
      await waitUntil(() => deliveryReport(received(consumer.bodies), acknowledged).lost === 0, 120_000);
      await new Promise((resolve) => setTimeout(resolve, 2_000));

      const report = deliveryReport(received(consumer.bodies), acknowledged);
      const after = consumer.arrivals.filter((at) => at >= killedAt);
      const gapMs = Math.max(0, ...after.map((at, i) => at - (i === 0 ? killedAt : after[i - 1])));
      reportMeasurement(`rabbitmq.${name}`, {
        writes: 1_000,
        killedNode: target + 1,
        publishGapMs: gapMs,
        ...report,
        redeliveredToConsumer: consumer.redelivered,
      });
      expect([report.lost, report.outOfOrder]).toEqual([0, []]);
      const health = (await (await fetch(`${service.url}/actuator/health/rabbit`)).json()) as { status: string };
      expect(health.status).toBe('UP');
    } finally {
      await consumer.stop();
      await service.stop();
      if (killed !== undefined) await cluster.restart(killed);
    }
  }

  it('delivers every acknowledged write in order per ticket when the node the service is connected to is killed', async () => {
    await writeThroughFailover({
      name: 'connected-node-killed',
      order: [0, 1, 2],
      consumerNode: 1,
      victim: connectedNode,
    });
  });

  it('keeps each ticket in order when the connected node is killed while batches of 16 KB events go out', async () => {
    // As a burst of large writes leaves the outbox: 100 tickets with 10 events each, recorded at once.
    await writeThroughFailover({
      name: 'connected-node-killed-16kb-batches',
      order: [0, 1, 2],
      consumerNode: 2,
      victim: connectedNode,
      load: () => recordLargeEvents(100, 10),
    });
  });

  it("delivers every acknowledged write in order per ticket when the queue's leader is killed", async () => {
    await writeThroughFailover({
      name: 'queue-leader-killed',
      order: [1, 2, 0],
      consumerNode: 0,
      declareOn: 2,
      victim: (queue) => cluster.queueLeader(queue),
    });
  });
});

/** Outbox rows of 16 KB, `perTicket` per ticket in step order, committed together into the run's database. */
async function recordLargeEvents(tickets: number, perTicket: number): Promise<Map<number, number>> {
  const db = await createConnection({
    host: process.env.DB_HOST ?? '127.0.0.1',
    port: Number(process.env.DB_PORT ?? 3306),
    user: 'root',
    password: process.env.DB_PASSWORD ?? '',
    database: process.env.DB_DATABASE,
  });
  const first = 3_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1_000;
  const ids = Array.from({ length: tickets }, (_, i) => first + i);
  const filler = 'x'.repeat(16_000);
  try {
    await db.beginTransaction();
    for (let step = 0; step < perTicket; step++) {
      const rows = ids.map((ticketId) => {
        const eventId = randomUUID();
        const event = {
          eventId,
          eventType: step === 0 ? 'CREATED' : 'UPDATED',
          occurredAt: new Date().toISOString(),
          ticketId,
          ticket: { title: `step ${step}`, filler },
        };
        return [eventId, event.eventType, ticketId, ticketId % 8, JSON.stringify(event), new Date()];
      });
      await db.query('INSERT INTO change_log (event_id, event_type, ticket_id, partition_no, payload, occurred_at) VALUES ?', [rows]);
    }
    await db.commit();
  } finally {
    await db.end();
  }
  return new Map(ids.map((id) => [id, perTicket]));
}
