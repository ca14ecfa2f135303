import { AsyncResource } from 'node:async_hooks';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { lastValueFrom } from 'rxjs';
import type { DataSource, QueryRunner } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { RabbitMqClient } from '../messaging/rabbitmq.client.js';
import { OutboxEvent } from './outbox-event.entity.js';

const BATCH_SIZE = 200;
const POLL_INTERVAL_MS = 1_000;
const MAX_BACKOFF_MS = 5_000;
const LINGER_MS = 10;
/** A message the broker refused this many times, while connected, is parked instead of blocking the rows behind it. */
export const MAX_ATTEMPTS = 10;

/** An outbox row as the relay reads it: what publishing needs, without entity hydration. */
type PendingEvent = Pick<OutboxEvent, 'id' | 'eventId' | 'eventType' | 'payload' | 'attempts'> & { occurredAt: Date | string };

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
  /** Created outside any request, with the application. */
  private readonly ownContext = new AsyncResource(OutboxRelay.name);

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
    // A pass kicked by a request must not run in that request's async context: it would carry the request's
    // database deadline and log lines as part of the request.
    this.running = this.ownContext.runInAsyncScope(() => this.drain()).finally(() => (this.running = undefined));
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
      await this.withRelayLock(async (runner) => {
        for (;;) {
          this.rerun = false;
          while (!this.stopped && (await this.relayBatch(runner)) === BATCH_SIZE);
          if (!this.rerun || this.stopped) break;
          // Writes kept coming while this batch went out: let a few more commit, so that under load each
          // batch carries more events for the same statements.
          await new Promise((resolve) => setTimeout(resolve, LINGER_MS));
        }
      });
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

  /**
   * Runs a pass on one connection of its own, holding the relay lock for the whole pass; does nothing while
   * another replica holds it. One connection for the pass keeps the relay out of the pool's queue, where
   * requests under load would make every batch wait.
   */
  private async withRelayLock(pass: (runner: QueryRunner) => Promise<void>): Promise<void> {
    if (!this.client.isConnected()) throw new Error('RabbitMQ is not connected');
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = await runner.query('SELECT GET_LOCK(?, 0) AS locked', [this.lockName]);
      if (Number(locked) !== 1) return;
      try {
        await pass(runner);
      } finally {
        await runner.query('SELECT RELEASE_LOCK(?)', [this.lockName]);
      }
    } finally {
      await runner.release();
    }
  }

  /** Publishes the oldest pending events, in order; returns how many it took. */
  private async relayBatch(runner: QueryRunner): Promise<number> {
    const events: PendingEvent[] = await runner.query(
      `SELECT id, event_id AS eventId, event_type AS eventType, payload, occurred_at AS occurredAt, attempts
       FROM outbox WHERE parked_at IS NULL ORDER BY id ASC LIMIT ${BATCH_SIZE}`,
    );
    if (events.length > 0) await this.publish(runner, events);
    return events.length;
  }

  /** Publishes in order on one confirm channel, deletes what was confirmed and counts what was refused. */
  private async publish(runner: QueryRunner, events: PendingEvent[]): Promise<void> {
    const results = await Promise.allSettled(
      events.map((event) =>
        lastValueFrom(
          this.client.emit(this.routingKey, {
            messageId: event.eventId,
            type: event.eventType,
            timestamp: new Date(event.occurredAt),
            body: event.payload,
          }),
          { defaultValue: undefined },
        ),
      ),
    );
    const confirmed = events.filter((_, i) => results[i].status === 'fulfilled').map((event) => event.id);
    if (confirmed.length > 0) await this.deleteEvents(runner, confirmed);

    const refused = events.flatMap((event, i) => {
      const result = results[i];
      return result.status === 'rejected' ? [{ event, reason: String((result.reason as Error)?.message ?? result.reason) }] : [];
    });
    if (refused.length === 0) return;
    if (!this.client.isConnected()) throw new Error('RabbitMQ connection lost while publishing');
    for (const { event, reason } of refused) await this.recordRefusal(runner, event, reason);
    throw new Error(`RabbitMQ refused ${refused.length} event(s)`);
  }

  /**
   * One `BETWEEN` per run of consecutive ids. Given a list of ids, the optimizer scans the whole table when its
   * statistics say the table is small (an outbox usually is), and the scan waits for the lock of every row a
   * write is still inserting, one after the other, for as long as writes keep coming. A single range on the
   * primary key is read as a range even then (EXPLAIN on MariaDB 10.11: `range` on PRIMARY for one range, `ALL`
   * for a list of ids).
   */
  private async deleteEvents(runner: QueryRunner, ids: string[]): Promise<void> {
    for (const [first, last] of consecutiveRuns(ids.map(Number))) {
      await runner.query('DELETE FROM outbox WHERE id BETWEEN ? AND ?', [first, last]);
    }
  }

  private async recordRefusal(runner: QueryRunner, event: PendingEvent, reason: string): Promise<void> {
    const attempts = event.attempts + 1;
    const parkedAt = attempts >= MAX_ATTEMPTS ? new Date() : null;
    await runner.manager.update(OutboxEvent, { id: event.id }, { attempts, lastError: reason.slice(0, 500), parkedAt });
    if (parkedAt) this.logger.error(`Event ${event.eventId} parked after ${attempts} refused attempts: ${reason}`);
  }
}

/** [first, last] of each run of consecutive numbers, for ascending `ids`: [1, 2, 3, 5] gives [1, 3] and [5, 5]. */
export function consecutiveRuns(ids: number[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const id of ids) {
    const run = runs.at(-1);
    if (run && id === run[1] + 1) run[1] = id;
    else runs.push([id, id]);
  }
  return runs;
}
