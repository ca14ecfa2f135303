import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { currentTraceContext, type TraceHeaders } from '../observability/tracing/trace-context.js';
import type { TransactionWrites } from '../database/transaction.js';
import { ChangeSequencer } from '../changes/change-sequencer.js';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxRepository } from './outbox.repository.js';

/** What the change log needs of an event; the event's JSON, all of it, is the message's body. */
export interface OutboxEvent {
  eventId: string;
  eventType: string;
  occurredAt: Date;
  /** Its ticket's events share a partition, and so go out in the order they were recorded. */
  ticketId: number;
}

/**
 * What a reader of the log may need to know of a change beyond its event, which stays what every channel reads
 * (the mail notifier, src/mail/outbound/, reads this). Absent: nothing more to say.
 */
export interface ChangeContext {
  /** The canonical address of the person whose mail or request caused the change, when one is known. */
  causedBy?: string;
  /** An update that moved the ticket's status: the status it left. */
  statusFrom?: string;
}

/**
 * Records a change in the caller's transaction: one `change_log` row, so it commits or rolls back with the write it
 * describes. Every channel reads that row (docs/architecture.md#the-change-log): the relay publishes it to RabbitMQ,
 * the sequencer numbers it for the change feed, and webhooks deliver it to each endpoint from their own place in the
 * log. Once the transaction has committed, the relay is woken, and so is the sequencer when a reader waits for new
 * numbers (their polls are the fallback).
 */
@Injectable()
export class OutboxWriter {
  private readonly partitions: number;
  /** One function each, so that a transaction recording many events wakes them once (afterCommit runs it once). */
  private readonly wakeRelay = () => this.relay.kick();
  private readonly wakeSequencer = () => this.sequencer.committed();

  constructor(
    private readonly relay: OutboxRelay,
    private readonly sequencer: ChangeSequencer,
    private readonly log: OutboxRepository,
    config: ConfigService<AppConfig, true>,
  ) {
    this.partitions = config.get('outbox.partitions', { infer: true });
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
    context?: ChangeContext,
  ): Promise<void> {
    // The routing key is stored per row (null: the configured one), so one partition can carry events of
    // several kinds, each to its own key, in order. The request's trace context travels with the event, so its
    // publish joins the request's trace (NULL untraced).
    await this.log.insert(writes, {
      eventId: event.eventId,
      eventType: event.eventType,
      ticketId: event.ticketId,
      partition: event.ticketId % this.partitions,
      payload: JSON.stringify(event),
      occurredAt: event.occurredAt,
      routingKey,
      traceparent: trace?.traceparent ?? null,
      tracestate: trace?.tracestate ?? null,
      context: context && Object.keys(context).length > 0 ? JSON.stringify(context) : null,
    });
    writes.afterCommit(this.wakeRelay);
    writes.afterCommit(this.wakeSequencer);
  }
}
