import { Logger } from '@nestjs/common';
import amqp, { type AmqpConnectionManager, type ChannelWrapper } from 'amqp-connection-manager';
import type { ConfirmChannel, Options } from 'amqplib';
import type { AppConfig } from '../config/app-config.js';
import type { OutgoingMessage } from './outgoing-message.js';
import { TopologyMismatchError, topologyMismatch } from './topology-mismatch.js';

/** How long a batch may wait for the broker's confirms before its unconfirmed messages count as failed. */
const PUBLISH_TIMEOUT_MS = 5_000;

/** What became of one message of a batch: confirmed, or why not. */
export type PublishOutcome = { confirmed: true } | { confirmed: false; refused: boolean; reason: string };

/**
 * The service's RabbitMQ client over amqp-connection-manager: publishes plain JSON bodies as persistent messages to
 * an exchange on a confirm channel, to the first reachable of several brokers (publishInOrder, used by the outbox
 * relay), and tells health and metrics how the connection is. Not a Nest ClientProxy: nothing here emits or sends
 * through Nest's microservice patterns, and the stock ClientRMQ wraps bodies in {pattern, data}, sends
 * non-persistent messages and does not use publisher confirms.
 *
 * amqp-connection-manager keeps the connection (round-robin over the brokers, heartbeats, reconnects) and
 * declares the topology on every new channel. Messages are published straight on that channel, never through
 * the manager's buffer: the manager re-sends what it buffered for a lost connection after it reconnects, and
 * the broker would then take those behind later ones. Here a lost connection fails its unconfirmed messages,
 * and the caller decides what to send again, in order.
 */
export class RabbitMqClient {
  private readonly logger = new Logger(RabbitMqClient.name);
  private connection?: AmqpConnectionManager;
  private wrapper?: ChannelWrapper;
  /** The live connection has its topology declared. */
  private topologyDeclared = false;
  /** The channel messages go out on; replaced after a nack (see confirmChannel). */
  private publishChannel?: Promise<ConfirmChannel>;
  private lastError?: Error;
  private firstAttempt: Promise<void> = Promise.resolve();
  private firstTopology: Promise<void> = Promise.resolve();
  private firstTopologySettled = false;

  constructor(private readonly options: AppConfig['rabbitmq']) {}

  /** Starts connecting in the background; a broker that is down never holds the caller back. */
  connect(): void {
    if (this.connection) return;
    const connection = amqp.connect(this.options.urls, {
      heartbeatIntervalInSeconds: 5,
      reconnectTimeInSeconds: 2,
      connectionOptions: { timeout: 3_000, clientProperties: { connection_name: 'ticket-service' } },
    });
    this.connection = connection;
    this.firstAttempt = new Promise((resolve) => {
      connection.once('connect', () => resolve());
      connection.once('connectFailed', () => resolve());
    });
    let topologySettled!: (error?: Error) => void;
    this.firstTopology = new Promise<Error | undefined>((resolve) => (topologySettled = resolve)).then((error) => {
      this.firstTopologySettled = true;
      if (error instanceof TopologyMismatchError) throw error;
    });
    connection.once('connectFailed', () => topologySettled());
    connection.on('connect', ({ url }) => {
      this.lastError = undefined;
      this.logger.log(`Connected to RabbitMQ at ${brokerAddress(url)}`);
    });
    connection.on('disconnect', ({ err }) => {
      this.lastError = err ?? new Error('RabbitMQ connection closed');
      this.logger.warn(`RabbitMQ connection lost: ${err?.message ?? 'closed'}`);
    });
    connection.on('connectFailed', ({ err, url }) => {
      this.lastError = err;
      this.logger.warn(`RabbitMQ not reachable at ${brokerAddress(url)}: ${err?.message}`);
    });
    this.wrapper = connection.createChannel({
      name: 'ticket-events',
      confirm: true,
      json: false,
      setup: async (channel: ConfirmChannel) => {
        // A refused declaration closes the channel with an error; unheard, amqplib would turn it into an error of
        // the whole connection, and reconnecting would repeat the refusal every few seconds.
        channel.on('error', () => undefined);
        try {
          await this.declareTopology(channel);
        } catch (error) {
          const mismatch = topologyMismatch(error, this.options.queue);
          this.lastError = mismatch ?? (error as Error);
          // At start-up the mismatch ends start-up with its own line; later it is logged here, once per connection.
          if (mismatch && this.firstTopologySettled) this.logger.error(mismatch.message);
          topologySettled(this.lastError);
          throw this.lastError;
        }
        this.topologyDeclared = true;
        channel.once('close', () => (this.topologyDeclared = false));
        topologySettled();
      },
    });
    this.wrapper.on('error', (err) => {
      if (!(err instanceof TopologyMismatchError)) this.logger.error(`RabbitMQ channel error: ${err.message}`);
    });
  }

  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    this.wrapper = undefined;
    this.topologyDeclared = false;
    this.publishChannel = undefined;
    await connection?.close();
  }

  /** The broker's version from the live connection; undefined while disconnected. */
  brokerVersion(): string | undefined {
    const version = this.connection?.connection?.connection.serverProperties.version;
    return typeof version === 'string' ? version : undefined;
  }

  isConnected(): boolean {
    return this.connection?.isConnected() ?? false;
  }

  /** Connected, with the topology declared: messages can go out now. */
  canPublish(): boolean {
    return this.isConnected() && this.topologyDeclared;
  }

  /** Resolves once the first connection attempt has ended, connected or not (bounded by the connect timeout). */
  firstConnectionAttempt(): Promise<void> {
    return this.firstAttempt;
  }

  /**
   * Resolves once the first connection attempt and, if it connected, the topology declaration have ended;
   * rejects with a TopologyMismatchError when the queue exists with other arguments than configured.
   */
  firstTopologyDeclaration(): Promise<void> {
    return this.firstTopology;
  }

  /** Why the broker is not usable: the last connection or topology failure, until the next success. */
  connectionError(): Error | undefined {
    return this.canPublish() ? undefined : this.lastError;
  }

  /**
   * Publishes the messages in the order given, on one channel, and reports for each whether the broker
   * confirmed it, each with its own routing key. A message written to a connection that is then lost is never
   * sent again by this client.
   */
  async publishInOrder(messages: OutgoingMessage[]): Promise<PublishOutcome[]> {
    if (messages.length === 0) return [];
    const channel = await this.confirmChannel()?.catch(() => undefined);
    if (!channel) {
      const reason = this.connectionError()?.message ?? 'RabbitMQ is not connected';
      return messages.map(() => ({ confirmed: false, refused: false, reason }));
    }
    const outcomes: Array<PublishOutcome | undefined> = messages.map(() => undefined);
    let settle!: () => void;
    const allSettled = new Promise<void>((resolve) => (settle = resolve));
    let pending = messages.length;
    const record = (index: number, outcome: PublishOutcome) => {
      if (outcomes[index]) return;
      outcomes[index] = outcome;
      if (--pending === 0) settle();
    };
    for (const [index, message] of messages.entries()) {
      let hasRoom: boolean;
      try {
        hasRoom = channel.publish(
          this.options.exchange,
          message.routingKey,
          Buffer.from(message.body, 'utf8'),
          messageProperties(message),
          (err) => record(index, err ? failure(err) : { confirmed: true }),
        );
      } catch (error) {
        // The channel closed under this loop: nothing more goes out on it.
        for (let rest = index; rest < messages.length; rest++) record(rest, failure(error as Error));
        break;
      }
      if (!hasRoom) await drainedOrClosed(channel);
    }
    const timer = setTimeout(settle, PUBLISH_TIMEOUT_MS);
    await allSettled;
    clearTimeout(timer);
    const result = outcomes.map((outcome) => outcome ?? { confirmed: false, refused: false, reason: 'no confirm from RabbitMQ in time' });
    if (result.some((outcome) => !outcome.confirmed)) this.discardChannel(channel);
    return result;
  }

  /**
   * A confirm channel of the live connection, opened once the topology is declared. Not amqp-connection-manager's
   * own channel: a channel that got a nack is replaced (on RabbitMQ 3.10, after a quorum queue's leader died, a
   * channel that had a nack went on nacking every later message, long after a new leader was elected), which the
   * manager only does on a reconnect.
   */
  private confirmChannel(): Promise<ConfirmChannel> | undefined {
    const model = this.connection?.connection;
    if (!model || !this.canPublish()) return undefined;
    if (!this.publishChannel) {
      const opened = model.createConfirmChannel().then((channel) => {
        channel.on('error', () => undefined);
        channel.once('close', () => {
          if (this.publishChannel === opened) this.publishChannel = undefined;
        });
        return channel;
      });
      opened.catch(() => {
        if (this.publishChannel === opened) this.publishChannel = undefined;
      });
      this.publishChannel = opened;
    }
    return this.publishChannel;
  }

  /** Closes a channel after a failed batch, so the next one goes out on a fresh channel. */
  private discardChannel(channel: ConfirmChannel): void {
    void this.publishChannel?.then((current) => {
      if (current !== channel) return;
      this.publishChannel = undefined;
      channel.close().catch(() => undefined);
    });
  }

  private async declareTopology(channel: ConfirmChannel): Promise<void> {
    const { exchange, exchangeType, queue, routingKey, queueType, queueArguments } = this.options;
    await channel.assertExchange(exchange, exchangeType, { durable: true });
    // A classic queue is declared without x-queue-type, as it always was, so queues declared by earlier
    // versions (or by consumers) stay equivalent.
    const args = queueType === 'quorum' ? { 'x-queue-type': 'quorum', ...queueArguments } : queueArguments;
    await channel.assertQueue(queue, { durable: true, arguments: args });
    await channel.bindQueue(queue, exchange, routingKey);
  }
}

/** Waits until the channel can take more (its write buffer drained) or has closed. */
function drainedOrClosed(channel: ConfirmChannel): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      channel.off('drain', done);
      channel.off('close', done);
      resolve();
    };
    channel.on('drain', done);
    channel.on('close', done);
  });
}

function messageProperties(message: OutgoingMessage): Options.Publish {
  return {
    contentType: 'application/json',
    contentEncoding: 'UTF-8',
    persistent: true,
    messageId: message.messageId,
    type: message.type,
    timestamp: Math.floor(message.timestamp.getTime() / 1000),
    ...(message.headers ? { headers: message.headers } : {}),
  };
}

/** A nack is the broker refusing the message; anything else (a closed channel) is the connection's fault. */
function failure(err: Error): PublishOutcome {
  return { confirmed: false, refused: err.message === 'message nacked', reason: err.message };
}

/** host:port of a broker URL, without credentials, for logs. */
function brokerAddress(url: unknown): string {
  try {
    const parsed = new URL(typeof url === 'string' ? url : String((url as { url?: string })?.url ?? url));
    return parsed.host;
  } catch {
    return 'unknown address';
  }
}
