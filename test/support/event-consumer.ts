import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';

/** A real consumer of the run's ticket queue; collects every message it receives. */
export class EventConsumer {
  readonly messages: ConsumeMessage[] = [];
  private connection?: ChannelModel;
  private channel?: Channel;

  static async start(): Promise<EventConsumer> {
    const consumer = new EventConsumer();
    consumer.connection = await amqp.connect(process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
    consumer.channel = await consumer.connection.createChannel();
    // The same idempotent declarations the service makes, so the consumer may start before any service has.
    const { RABBITMQ_EXCHANGE: exchange, RABBITMQ_QUEUE: queue, RABBITMQ_ROUTING_KEY: routingKey } = process.env;
    await consumer.channel.assertExchange(exchange!, 'topic', { durable: true });
    await consumer.channel.assertQueue(queue!, { durable: true });
    await consumer.channel.bindQueue(queue!, exchange!, routingKey!);
    // The queue is durable and the worker's suites use it one after another: it still holds what earlier suites
    // published, also from databases of their own (useOwnDatabase), whose ticket ids are this suite's ids again. A
    // consumer taking those would see two CREATED events for a ticket created once: it starts from an empty queue.
    await consumer.channel.purgeQueue(queue!);
    await consumer.channel.consume(process.env.RABBITMQ_QUEUE!, (message) => message && consumer.messages.push(message), { noAck: true });
    return consumer;
  }

  /**
   * A consumer of its own exclusive, server-named queue bound to the run's exchange with `bindingKey` (e.g.
   * `ticket.#`): what a new consumer of the later event kinds sees. The queue goes when the consumer stops.
   */
  static async bound(bindingKey: string): Promise<EventConsumer> {
    const consumer = new EventConsumer();
    consumer.connection = await amqp.connect(process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
    consumer.channel = await consumer.connection.createChannel();
    const exchange = process.env.RABBITMQ_EXCHANGE!;
    await consumer.channel.assertExchange(exchange, 'topic', { durable: true });
    const { queue } = await consumer.channel.assertQueue('', { exclusive: true, autoDelete: true });
    await consumer.channel.bindQueue(queue, exchange, bindingKey);
    await consumer.channel.consume(queue, (message) => message && consumer.messages.push(message), { noAck: true });
    return consumer;
  }

  /** Event types about one ticket, in arrival order. */
  typesFor(ticketId: number): string[] {
    return this.forTicket(ticketId).map((message) => String(message.properties.type));
  }

  bodies(): Array<Record<string, any>> {
    return this.messages.map((message) => JSON.parse(message.content.toString('utf8')));
  }

  /** Messages about one ticket, in arrival order. */
  forTicket(ticketId: number): ConsumeMessage[] {
    return this.messages.filter((message) => JSON.parse(message.content.toString('utf8')).ticketId === ticketId);
  }

  async waitFor(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms (${this.messages.length} messages received)`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async stop(): Promise<void> {
    await this.connection?.close();
  }
}
