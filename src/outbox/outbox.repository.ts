import { Database } from '../database/database.js';
import { Injectable } from '@nestjs/common';
import type { Queryable } from '../database/statement-batch.js';
import { EVERY_PARTITION } from '../config/outbox-config.js';

export interface OutboxBacklog {
  pending: number;
  oldestPendingAt: Date | null;
  parked: number;
}

/** A change waiting for RabbitMQ, as the relay reads it: what publishing needs, without entity hydration. */
export interface PendingEvent {
  id: string;
  partition: number;
  eventId: string;
  eventType: string;
  /** Null: the configured routing key (RABBITMQ_ROUTING_KEY), which CREATED and UPDATED always go to. */
  routingKey: string | null;
  payload: string;
  occurredAt: Date | string;
  attempts: number;
  /** The recording request's W3C trace context, when it was traced. */
  traceparent?: string | null;
  tracestate?: string | null;
}

/** A change-log row as a write records it. */
export interface ChangeLogRow {
  eventId: string;
  eventType: string;
  ticketId: number;
  partition: number;
  /** The event's JSON, all of it: the message's body, the feed's item and the webhook's `data`. */
  payload: string;
  occurredAt: Date;
  /** Null: the configured RABBITMQ_ROUTING_KEY. */
  routingKey: string | null;
  traceparent: string | null;
  tracestate: string | null;
  /** A ChangeContext's JSON, or null. */
  context: string | null;
}

/**
 * `change_log` as the write path and the relay see it: one row per change, inserted in the transaction of the write
 * it describes (relay_status 'pending'), marked 'published' once RabbitMQ has confirmed it, or 'parked' once refused
 * MAX_ATTEMPTS times. The row stays for the change feed and webhooks, which follow it by seq (src/changes/,
 * src/webhooks/). Plain SQL: TypeORM's repository insert would read the row back for its column defaults, one more
 * round trip inside every write's transaction.
 */
@Injectable()
export class OutboxRepository {
  constructor(private readonly database: Database) {}

  /** Inserts the change in the caller's transaction (`manager`; a StatementBatch sends it with the write's other statements). */
  async insert(manager: Queryable, row: ChangeLogRow): Promise<void> {
    await manager.query(
      `INSERT INTO change_log (event_id, event_type, routing_key, ticket_id, partition_no, occurred_at, payload, traceparent, tracestate, context)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        row.eventId,
        row.eventType,
        row.routingKey,
        row.ticketId,
        row.partition,
        row.occurredAt,
        row.payload,
        row.traceparent,
        row.tracestate,
        row.context,
      ],
    );
  }

  /** How many events wait (pending and parked), and since when the oldest pending one. */
  async backlog(): Promise<OutboxBacklog> {
    // A range of idx_change_log_relay per partition and status: the published rows, nearly all of the log, are not read.
    const [row] = await this.database.rows<{ pending: string | number | null; oldest: Date | null; parked: string | number | null }>(
      `SELECT SUM(relay_status = 'pending') AS pending, MIN(IF(relay_status = 'pending', occurred_at, NULL)) AS oldest,
              SUM(relay_status = 'parked') AS parked
       FROM change_log WHERE partition_no IN (?) AND relay_status IN ('pending', 'parked')`,
      [EVERY_PARTITION],
    );
    return {
      pending: Number(row.pending ?? 0),
      oldestPendingAt: row.oldest ? new Date(row.oldest) : null,
      parked: Number(row.parked ?? 0),
    };
  }

  /**
   * The oldest pending events of each partition, merged in id order and cut to `limit`; one index range per
   * partition (idx_change_log_relay), each stopping after `limit` rows. Cutting the merged list keeps each
   * partition's part a prefix of its pending events.
   */
  async pending(runner: Queryable, partitions: number[], limit: number): Promise<PendingEvent[]> {
    const perPartition = partitions.map(
      () => `(SELECT id, partition_no AS \`partition\`, event_id AS eventId, event_type AS eventType, routing_key AS routingKey, payload,
                     occurred_at AS occurredAt, attempts, traceparent, tracestate
              FROM change_log WHERE partition_no = ? AND relay_status = 'pending' ORDER BY id LIMIT ${limit})`,
    );
    const rows = (await runner.query(perPartition.join(' UNION ALL '), partitions)) as PendingEvent[];
    return rows
      .map((row) => ({ ...row, partition: Number(row.partition) }))
      .sort((a, b) => Number(a.id) - Number(b.id))
      .slice(0, limit);
  }

  /**
   * Marks the events of `ids` published. The ids go in as a derived table joined on the primary key: given as a list
   * (`IN`), the optimizer may scan the table when its statistics call it small, and the scan waits for the lock of
   * every row a write is still inserting (EXPLAIN on MariaDB 10.11: eq_ref on PRIMARY for the join).
   */
  async markPublished(runner: Queryable, ids: string[]): Promise<void> {
    // In id order, as the sequencer numbers rows: two transactions that lock rows of the log in one order never deadlock.
    const sorted = [...ids].sort((a, b) => Number(a) - Number(b));
    const derived = sorted.map(() => 'SELECT ? AS id').join(' UNION ALL ');
    await runner.query(`UPDATE change_log c JOIN (${derived}) published ON c.id = published.id SET c.relay_status = 'published'`, sorted);
  }

  /** Records a refused publish: its attempts so far, the broker's reason (its first 500 characters), and when it was parked (null: not). */
  async recordRefusal(runner: Queryable, id: string, attempts: number, reason: string, parkedAt: Date | null): Promise<void> {
    await runner.query(
      `UPDATE change_log SET attempts = ?, last_error = ?, parked_at = ?, relay_status = IF(? IS NULL, 'pending', 'parked') WHERE id = ?`,
      [attempts, reason.slice(0, 500), parkedAt, parkedAt, id],
    );
  }
}
