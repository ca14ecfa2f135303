import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { QueryRunner } from 'typeorm';
import { Database } from '../database/database.js';
import type { AppConfig } from '../config/app-config.js';
import { type PublishOutcome, RabbitMqClient } from '../messaging/rabbitmq.client.js';
import { publishSpans, untraced } from '../observability/tracing/trace-context.js';
import { PeriodicWorker } from '../database/periodic-worker.js';
import { OutboxLeases } from './outbox-leases.js';
import { OutboxLeasesRepository } from './outbox-leases.repository.js';
import { type OutboxBacklog, OutboxRepository, type PendingEvent } from './outbox.repository.js';
import { v1Message } from './v1-message.js';

export type { OutboxBacklog, PendingEvent };

const BATCH_SIZE = 200;
const MAX_BACKOFF_MS = 5_000;
const LINGER_MS = 10;
/** A message the broker refused this many times, while connected, is parked instead of blocking the rows behind it. */
export const MAX_ATTEMPTS = 10;

/** Told about every batch the relay published, e.g. for metrics; must not throw. */
export interface OutboxRelayObserver {
  relayed(events: PendingEvent[], outcomes: PublishOutcome[], confirmedAt: number): void;
}

/** Per partition, the events to mark published (the confirmed prefix) and the first one that did not go out, if any. */
export interface BatchResult {
  confirmed: Map<number, string[]>;
  stopped: Array<{ event: PendingEvent; outcome: Extract<PublishOutcome, { confirmed: false }> }>;
}

/**
 * Within each partition, only the events before the first unconfirmed one count as published: the rest go out
 * again from there, so a ticket's events reach the broker in order (a later event may arrive twice, never
 * before an earlier one). `events` are in id order.
 */
export function confirmedPrefixes(events: PendingEvent[], outcomes: PublishOutcome[]): BatchResult {
  const confirmed = new Map<number, string[]>();
  const stopped: BatchResult['stopped'] = [];
  const halted = new Set<number>();
  events.forEach((event, index) => {
    const outcome = outcomes[index];
    if (halted.has(event.partition)) return;
    if (!outcome.confirmed) {
      halted.add(event.partition);
      stopped.push({ event, outcome });
      return;
    }
    confirmed.set(event.partition, [...(confirmed.get(event.partition) ?? []), event.id]);
  });
  return { confirmed, stopped };
}

/**
 * Publishes recorded events to RabbitMQ and marks each one published once the broker has confirmed it. Kicked after every
 * commit and also polling, so events recorded before a crash or during a broker outage go out as soon as
 * publishing is possible. Events are spread over partitions by ticket; each partition is published by the one
 * relay holding its lease (see OutboxLeases), in id order, which keeps each ticket's events in commit order while
 * replicas share the work.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private readonly routingKey: string;
  private readonly exchange: string;
  private readonly leases: OutboxLeases;
  /** Also how soon a partition whose relay died is taken over once its lease has expired. */
  private readonly pollIntervalMs: number;
  /**
   * A pass woken by a request's commit must not run in that request's async context (it would carry the request's
   * database deadline and log lines), which PeriodicWorker sees to; nor is the relay's polling traced: only its
   * publishes are, each in the trace of the request that wrote it.
   */
  private readonly worker: PeriodicWorker;
  private stopped = false;
  private failures = 0;
  private retryAt = 0;
  private backlogReported = false;
  private partitionsReady = false;
  private refreshedAt = 0;
  private observer?: OutboxRelayObserver;

  constructor(
    private readonly database: Database,
    private readonly client: RabbitMqClient,
    private readonly outbox: OutboxRepository,
    leases: OutboxLeasesRepository,
    config: ConfigService<AppConfig, true>,
  ) {
    this.routingKey = config.get('rabbitmq.routingKey', { infer: true });
    this.exchange = config.get('rabbitmq.exchange', { infer: true });
    const settings = config.get('outbox', { infer: true });
    this.leases = new OutboxLeases(leases, settings.partitions, settings.leaseTtlMs);
    this.pollIntervalMs = settings.pollIntervalMs;
    this.worker = new PeriodicWorker({ name: OutboxRelay.name, intervalMs: this.pollIntervalMs, pass: () => untraced(() => this.drain()) });
  }

  onApplicationBootstrap(): void {
    // The first pass waits for the broker's first connection attempt, so start-up does not report a backlog.
    void this.client.firstConnectionAttempt().then(() => this.worker.start());
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.worker.stop();
    // Other relays take the partitions over at once instead of after the lease's TTL. Best effort: if the
    // database is gone, the leases simply expire.
    await this.database.withWorkerConnection((runner) => this.leases.releaseAll(runner)).catch(() => undefined);
  }

  /** Starts a relay pass, or asks the running one to go round again. Never throws. */
  kick(): void {
    this.worker.wake();
  }

  observe(observer: OutboxRelayObserver): void {
    this.observer = observer;
  }

  /** The partitions this relay publishes for now. */
  heldPartitions(): number[] {
    return this.leases.heldPartitions();
  }

  backlog(): Promise<OutboxBacklog> {
    return this.outbox.backlog();
  }

  private async drain(): Promise<void> {
    // Backing off after a failed pass: neither a commit nor the poll starts one before retryAt.
    if (Date.now() < this.retryAt) return;
    try {
      // A connection of its own for the pass keeps the relay out of the pool's queue, where requests under load
      // would make every batch wait.
      await this.database.withWorkerConnection(async (runner) => {
        if (!this.partitionsReady) {
          await this.leases.ensurePartitions(runner);
          this.partitionsReady = true;
        }
        // Leases are kept up while the broker is away too, so partitions do not move for an outage.
        await this.refreshLeasesIfDue(runner);
        if (!this.client.canPublish()) throw this.client.connectionError() ?? new Error('RabbitMQ is not connected');
        for (;;) {
          this.worker.takeWake(); // what woke it until now, the batches below publish
          while (!this.stopped && (await this.relayBatch(runner)));
          if (!this.worker.takeWake() || this.stopped) break;
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
      const backoff = Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(this.failures, 6));
      this.retryAt = Date.now() + backoff;
      if (!this.backlogReported) {
        const pending = await this.backlog().then(
          (b) => b.pending,
          () => 'unknown',
        );
        this.logger.warn(`Event backlog building (${pending} pending): ${(error as Error).message}; retrying with backoff`);
        this.backlogReported = true;
      }
    }
  }

  /**
   * At most every half poll interval: under load a commit kicks a pass right after the last one, whose leases are
   * still current; a long drain (a backlog after an outage) still says it is alive and keeps its share current.
   */
  private async refreshLeasesIfDue(runner: QueryRunner): Promise<void> {
    if (Date.now() - this.refreshedAt < this.pollIntervalMs / 2) return;
    await this.leases.refresh(runner);
    this.refreshedAt = Date.now();
  }

  /** Publishes the oldest pending events of the partitions held; true when there may be more right behind. */
  private async relayBatch(runner: QueryRunner): Promise<boolean> {
    await this.refreshLeasesIfDue(runner);
    const partitions = [...this.leases.publishable().keys()];
    if (partitions.length === 0) return false;
    const events = await this.outbox.pending(runner, partitions, BATCH_SIZE);
    if (events.length === 0) return false;

    const spans = publishSpans(events, this.exchange, this.routingKey);
    const outcomes = await this.client.publishInOrder(
      events.map((event, i) => ({
        routingKey: event.routingKey ?? this.routingKey,
        messageId: event.eventId,
        type: event.eventType,
        timestamp: new Date(event.occurredAt),
        // The configured key is v1's: its CREATED and UPDATED never change (decision 26).
        body: event.routingKey === null ? v1Message(event.payload) : event.payload,
        headers: spans[i].headers,
      })),
    );
    spans.forEach((span, i) => span.end(outcomes[i]));
    this.observer?.relayed(events, outcomes, Date.now());
    const { confirmed, stopped } = confirmedPrefixes(events, outcomes);
    if (confirmed.size > 0) await this.markPublished(runner, confirmed);
    if (stopped.length === 0) return events.length === BATCH_SIZE;

    if (!this.client.canPublish()) throw new Error('RabbitMQ connection lost while publishing');
    for (const { event, outcome } of stopped) if (outcome.refused) await this.recordRefusal(runner, event, outcome.reason);
    throw new Error(`RabbitMQ did not confirm ${stopped.length} event(s): ${stopped[0].outcome.reason}`);
  }

  /** Marks the confirmed events of the partitions this relay still holds published, behind the lease fence. */
  private async markPublished(runner: QueryRunner, confirmed: Map<number, string[]>): Promise<void> {
    const kept = await this.leases.fenced(runner, [...confirmed.keys()], (partitions, later) =>
      this.outbox.markPublished(
        later,
        partitions.flatMap((partition) => confirmed.get(partition)!),
      ),
    );
    const lost = [...confirmed.keys()].filter((partition) => !kept.includes(partition));
    if (lost.length > 0) {
      const count = lost.reduce((sum, partition) => sum + confirmed.get(partition)!.length, 0);
      this.logger.warn(
        `Lease lost before marking ${count} published event(s) of partition(s) ${lost.join(', ')}; they stay for the new owner`,
      );
    }
  }

  private async recordRefusal(runner: QueryRunner, event: PendingEvent, reason: string): Promise<void> {
    const attempts = event.attempts + 1;
    const parked = attempts >= MAX_ATTEMPTS;
    await this.outbox.recordRefusal(runner, event.id, attempts, reason, parked ? new Date() : null);
    if (parked) this.logger.error(`Event ${event.eventId} parked after ${attempts} refused attempts: ${reason}`);
  }
}
