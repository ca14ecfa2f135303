import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { lastValueFrom } from 'rxjs';
import { type DataSource, In, IsNull } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { RabbitMqClient } from '../messaging/rabbitmq.client.js';
import { OutboxEvent } from './outbox-event.entity.js';

const BATCH_SIZE = 200;
const POLL_INTERVAL_MS = 1_000;
const MAX_BACKOFF_MS = 5_000;
/** A message the broker refused this many times, while connected, is parked instead of blocking the rows behind it. */
export const MAX_ATTEMPTS = 10;

export interface OutboxBacklog {
  pending: number;
  oldestPendingAt: Date | null;
  parked: number;
}

/**
 * Publishes recorded events to RabbitMQ and deletes each one once the broker has confirmed it.
 * Kicked after every commit and also polling, so events recorded before a crash or during a broker
 * outage go out as soon as publishing is possible. Across replicas, a database-wide named lock lets one
 * relay publish at a time, which keeps each ticket's events in commit order.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private readonly lockName: string;
  private readonly routingKey: string;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private rerun = false;
  private stopped = false;
  private failures = 0;
  private retryAt = 0;
  private backlogReported = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly client: RabbitMqClient,
    config: ConfigService<AppConfig, true>,
  ) {
    this.lockName = `${config.get('db.database', { infer: true })}.outbox_relay`;
    this.routingKey = config.get('rabbitmq.routingKey', { infer: true });
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.kick(), POLL_INTERVAL_MS);
    this.timer.unref();
    // The first pass waits for the broker's first connection attempt, so start-up does not report a backlog.
    void this.client.firstConnectionAttempt().then(() => this.kick());
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** Starts a relay pass, or asks the running one to go round again. Never throws. */
  kick(): void {
    if (this.stopped || Date.now() < this.retryAt) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.running = this.drain().finally(() => (this.running = undefined));
  }

  /** Resolves when nothing is pending or in flight; used by shutdown and tests. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async backlog(): Promise<OutboxBacklog> {
    const [row] = await this.dataSource.query(
      `SELECT COUNT(*) - COUNT(parked_at) AS pending, MIN(CASE WHEN parked_at IS NULL THEN occurred_at END) AS oldest,
              COUNT(parked_at) AS parked FROM outbox`,
    );
    return { pending: Number(row.pending), oldestPendingAt: row.oldest ? new Date(row.oldest) : null, parked: Number(row.parked) };
  }

  private async drain(): Promise<void> {
    try {
      do {
        this.rerun = false;
        while (!this.stopped && (await this.relayBatch()) === BATCH_SIZE);
      } while (this.rerun && !this.stopped);
      if (this.backlogReported) this.logger.log('Event backlog drained');
      this.failures = 0;
      this.backlogReported = false;
    } catch (error) {
      this.failures++;
      const backoff = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(this.failures, 6));
      this.retryAt = Date.now() + backoff;
      if (!this.backlogReported) {
        const pending = await this.backlog().then((b) => b.pending, () => 'unknown');
        this.logger.warn(`Event backlog building (${pending} pending): ${(error as Error).message}; retrying with backoff`);
        this.backlogReported = true;
      }
    }
  }

  /** Publishes one batch under the relay lock; returns how many events it took, 0 if another replica holds the lock. */
  private async relayBatch(): Promise<number> {
    if (!this.client.isConnected()) throw new Error('RabbitMQ is not connected');
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = await runner.query('SELECT GET_LOCK(?, 0) AS locked', [this.lockName]);
      if (Number(locked) !== 1) return 0;
      try {
        const events = await runner.manager.find(OutboxEvent, {
          where: { parkedAt: IsNull() },
          order: { id: 'ASC' },
          take: BATCH_SIZE,
        });
        await this.publish(runner.manager, events);
        return events.length;
      } finally {
        await runner.query('SELECT RELEASE_LOCK(?)', [this.lockName]);
      }
    } finally {
      await runner.release();
    }
  }

  /** Publishes in order on one confirm channel, deletes what was confirmed and counts what was refused. */
  private async publish(manager: DataSource['manager'], events: OutboxEvent[]): Promise<void> {
    const results = await Promise.allSettled(
      events.map((event) =>
        lastValueFrom(
          this.client.emit(this.routingKey, {
            messageId: event.eventId,
            type: event.eventType,
            timestamp: event.occurredAt,
            body: event.payload,
          }),
          { defaultValue: undefined },
        ),
      ),
    );
    const confirmed = events.filter((_, i) => results[i].status === 'fulfilled').map((event) => event.id);
    if (confirmed.length > 0) await manager.delete(OutboxEvent, { id: In(confirmed) });

    const refused = events.filter((_, i) => results[i].status === 'rejected');
    if (refused.length === 0) return;
    if (!this.client.isConnected()) throw new Error('RabbitMQ connection lost while publishing');
    for (const event of refused) await this.recordRefusal(manager, event, results[events.indexOf(event)]);
    throw new Error(`RabbitMQ refused ${refused.length} event(s)`);
  }

  private async recordRefusal(manager: DataSource['manager'], event: OutboxEvent, result: PromiseSettledResult<unknown>) {
    const reason = result.status === 'rejected' ? String((result.reason as Error)?.message ?? result.reason) : '';
    const attempts = event.attempts + 1;
    const parkedAt = attempts >= MAX_ATTEMPTS ? new Date() : null;
    await manager.update(OutboxEvent, { id: event.id }, { attempts, lastError: reason.slice(0, 500), parkedAt });
    if (parkedAt) this.logger.error(`Event ${event.eventId} parked after ${attempts} refused attempts: ${reason}`);
  }
}
