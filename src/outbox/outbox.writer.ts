import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { currentTraceContext, type TraceHeaders } from '../observability/tracing/trace-context.js';
import type { TransactionWrites } from '../database/transaction.js';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxRepository } from './outbox.repository.js';
import { ChangeFeedRepository } from '../changes/change-feed.repository.js';

/** What the outbox needs of an event; the event's JSON, all of it, is the message's body. */
export interface OutboxEvent {
  eventId: string;
  eventType: string;
  occurredAt: Date;
  /** Its ticket's events share a partition, and so go out in the order they were recorded. */
  ticketId: number;
}

/** An event as recorded, for what else is written with it (e.g. webhook deliveries). */
export interface RecordedEvent extends OutboxEvent {
  /** Null: the configured RABBITMQ_ROUTING_KEY. */
  routingKey: string | null;
  /** The event's JSON, exactly the message body RabbitMQ gets. */
  payload: string;
}

/** Writes something more in the transaction of every event recorded, e.g. into the caller's statement batch. */
export type OutboxFollower = (writes: TransactionWrites, event: RecordedEvent) => Promise<void>;

/**
 * Records an event in the caller's transaction, so it commits or rolls back with the write it describes, and wakes
 * the relay once that transaction has committed (the relay's poll is only the fallback).
 */
@Injectable()
export class OutboxWriter {
  private readonly partitions: number;
  private readonly followers: OutboxFollower[] = [];
  /** One function, so that a transaction recording many events wakes the relay once (afterCommit runs it once). */
  private readonly wakeRelay = () => this.relay.kick();

  constructor(
    private readonly relay: OutboxRelay,
    private readonly outbox: OutboxRepository,
    private readonly changes: ChangeFeedRepository,
    config: ConfigService<AppConfig, true>,
  ) {
    this.partitions = config.get('outbox.partitions', { infer: true });
  }

  /** Adds a writer that runs, in the same transaction, for every event recorded from now on. */
  follow(follower: OutboxFollower): void {
    this.followers.push(follower);
  }

  /**
   * `routingKey`: null for the configured RABBITMQ_ROUTING_KEY. `trace`: the trace the event continues; by default the
   * current one (a write made for several requests names each's).
   */
  async record(
    writes: TransactionWrites,
    event: OutboxEvent,
    routingKey: string | null,
    trace: TraceHeaders | undefined = currentTraceContext(),
  ): Promise<void> {
    // The routing key is stored per row (null: the configured one), so one partition can carry events of
    // several kinds, each to its own key, in order. The request's trace context travels with the event, so its
    // publish joins the request's trace (NULL untraced).
    const payload = JSON.stringify(event);
    await this.outbox.insert(writes, {
      eventId: event.eventId,
      eventType: event.eventType,
      ticketId: event.ticketId,
      partition: event.ticketId % this.partitions,
      payload,
      occurredAt: event.occurredAt,
      routingKey,
      traceparent: trace?.traceparent ?? null,
      tracestate: trace?.tracestate ?? null,
    });
    // Every kind of event is a change of the feed, committed with it (src/changes/).
    await this.changes.insert(writes, { ...event, payload });
    for (const follower of this.followers) await follower(writes, { ...event, routingKey, payload });
    writes.afterCommit(this.wakeRelay);
  }
}
