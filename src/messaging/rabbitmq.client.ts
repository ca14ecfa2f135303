import { Logger } from '@nestjs/common';
import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import amqp, { type AmqpConnectionManager, type ChannelWrapper } from 'amqp-connection-manager';
import type { ConfirmChannel } from 'amqplib';
import type { AppConfig } from '../config/app-config.js';
import type { OutgoingMessage } from './outgoing-message.js';

/** How long a publish may wait for a connection and the broker's confirm before it counts as failed. */
const PUBLISH_TIMEOUT_MS = 5_000;

/**
 * A Nest ClientProxy over amqp-connection-manager that publishes plain JSON bodies as persistent messages
 * to an exchange on a confirm channel. The stock ClientRMQ wraps bodies in {pattern, data}, sends
 * non-persistent messages and does not use publisher confirms.
 *
 * `emit(routingKey, message)` resolves once the broker has confirmed the message.
 */
export class RabbitMqClient extends ClientProxy {
  private readonly logger = new Logger(RabbitMqClient.name);
  private connection?: AmqpConnectionManager;
  private channel?: ChannelWrapper;
  private lastError?: Error;
  private firstAttempt: Promise<void> = Promise.resolve();

  constructor(private readonly options: AppConfig['rabbitmq']) {
    super();
  }

  /** Starts connecting in the background; a broker that is down never holds the caller back. */
  connect(): Promise<void> {
    if (this.connection) return Promise.resolve();
    this.connection = amqp.connect([this.options.url], {
      heartbeatIntervalInSeconds: 5,
      reconnectTimeInSeconds: 2,
      connectionOptions: { timeout: 3_000, clientProperties: { connection_name: 'ticket-service' } },
    });
    const connection = this.connection;
    this.firstAttempt = new Promise((resolve) => {
      connection.once('connect', () => resolve());
      connection.once('connectFailed', () => resolve());
    });
    this.connection.on('connect', () => {
      this.lastError = undefined;
      this.logger.log('Connected to RabbitMQ');
    });
    this.connection.on('disconnect', ({ err }) => {
      this.lastError = err ?? new Error('RabbitMQ connection closed');
      this.logger.warn(`RabbitMQ connection lost: ${err?.message ?? 'closed'}`);
    });
    this.connection.on('connectFailed', ({ err }) => {
      this.lastError = err;
      this.logger.warn(`RabbitMQ not reachable: ${err?.message}`);
    });
    this.channel = this.connection.createChannel({
      name: 'ticket-events',
      confirm: true,
      json: false,
      publishTimeout: PUBLISH_TIMEOUT_MS,
      setup: (channel: ConfirmChannel) => this.declareTopology(channel),
    });
    this.channel.on('error', (err) => this.logger.error(`RabbitMQ channel error: ${err.message}`));
    return Promise.resolve();
  }

  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    this.channel = undefined;
    await connection?.close();
  }

  unwrap<T>(): T {
    if (!this.connection) throw new Error('RabbitMQ client is not connected');
    return this.connection as T;
  }

  /** The broker's version from the live connection; undefined while disconnected. */
  brokerVersion(): string | undefined {
    const version = this.connection?.connection?.connection.serverProperties.version;
    return typeof version === 'string' ? version : undefined;
  }

  isConnected(): boolean {
    return this.connection?.isConnected() ?? false;
  }

  /** Resolves once the first connection attempt has ended, connected or not (bounded by the connect timeout). */
  firstConnectionAttempt(): Promise<void> {
    return this.firstAttempt;
  }

  /** Why the broker is not connected: the last connection failure or loss, until the next successful connect. */
  connectionError(): Error | undefined {
    return this.isConnected() ? undefined : this.lastError;
  }

  protected async dispatchEvent<T = unknown>(packet: ReadPacket<OutgoingMessage>): Promise<T> {
    if (!this.channel) throw new Error('RabbitMQ client is not connected');
    const message = packet.data;
    await this.channel.publish(this.options.exchange, String(packet.pattern), Buffer.from(message.body, 'utf8'), {
      contentType: 'application/json',
      contentEncoding: 'UTF-8',
      persistent: true,
      messageId: message.messageId,
      type: message.type,
      timestamp: Math.floor(message.timestamp.getTime() / 1000),
    });
    return undefined as T;
  }

  /** Request-response is not part of this service's messaging. */
  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    callback({ err: new Error('RabbitMqClient only emits events'), isDisposed: true });
    return () => undefined;
  }

  private async declareTopology(channel: ConfirmChannel): Promise<void> {
    const { exchange, exchangeType, queue, routingKey } = this.options;
    await channel.assertExchange(exchange, exchangeType, { durable: true });
    await channel.assertQueue(queue, { durable: true });
    await channel.bindQueue(queue, exchange, routingKey);
  }
}
