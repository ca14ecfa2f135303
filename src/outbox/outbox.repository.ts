import { Database } from '../database/database.js';
import { Injectable } from '@nestjs/common';
import type { Queryable } from '../database/statement-batch.js';

export interface OutboxBacklog {
  pending: number;
  oldestPendingAt: Date | null;
  parked: number;
}

/** An outbox row as the relay reads it: what publishing needs, without entity hydration. */
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

/** An `outbox` row as a write records it. */
export interface OutboxRow {
  eventId: string;
  eventType: string;
  ticketId: number;
  partition: number;
  /** The event's JSON, all of it: the message's body. */
  payload: string;
  occurredAt: Date;
  /** Null: the configured RABBITMQ_ROUTING_KEY. */
  routingKey: string | null;
  traceparent: string | null;
  tracestate: string | null;
}

/**
 * `outbox`: events recorded in the transactions of the writes they describe, read, deleted and parked by the relay
 * on the connection of its pass. Plain SQL: TypeORM's repository insert would read the row back for its column
 * defaults, one more round trip inside every write's transaction.
 */
@Injectable()
export class OutboxRepository {
  constructor(private readonly database: Database) {}

  /** Inserts the event in the caller's transaction (`manager`). */
  async insert(manager: Queryable, row: OutboxRow): Promise<void> {
    await manager.query(
      `INSERT INTO outbox (event_id, event_type, ticket_id, partition_no, payload, occurred_at, routing_key, traceparent, tracestate)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        row.eventId,
        row.eventType,
        row.ticketId,
        row.partition,
        row.payload,
        row.occurredAt,
        row.routingKey,
        row.traceparent,
        row.tracestate,
      ],
    );
  }

  /** How many events wait (pending and parked), and since when the oldest pending one. */
  async backlog(): Promise<OutboxBacklog> {
    const [row] = await this.database.rows<{ pending: string | number; oldest: Date | null; parked: string | number }>(
      `SELECT COUNT(*) - COUNT(parked_at) AS pending, MIN(CASE WHEN parked_at IS NULL THEN occurred_at END) AS oldest,
              COUNT(parked_at) AS parked FROM outbox`,
      [],
    );
    return { pending: Number(row.pending), oldestPendingAt: row.oldest ? new Date(row.oldest) : null, parked: Number(row.parked) };
  }

  /**
   * The oldest pending events of each partition, merged in id order and cut to `limit`; one index range per
   * partition (idx_outbox_partition_pending), each stopping after `limit` rows. Cutting the merged list keeps each
   * partition's part a prefix of its pending events.
   */
  async pending(runner: Queryable, partitions: number[], limit: number): Promise<PendingEvent[]> {
    const perPartition = partitions.map(
      () => `(SELECT id, partition_no AS \`partition\`, event_id AS eventId, event_type AS eventType, routing_key AS routingKey, payload,
                     occurred_at AS occurredAt, attempts, traceparent, tracestate
              FROM outbox WHERE partition_no = ? AND parked_at IS NULL ORDER BY id LIMIT ${limit})`,
    );
    const rows = (await runner.query(perPartition.join(' UNION ALL '), partitions)) as PendingEvent[];
    return rows
      .map((row) => ({ ...row, partition: Number(row.partition) }))
      .sort((a, b) => Number(a.id) - Number(b.id))
      .slice(0, limit);
  }

  /**
   * Deletes the events of `ids`. The ids go in as a derived table joined on the primary key: given as a list
   * (`IN`), the optimizer scans the whole table when its statistics call it small (an outbox usually is), and the
   * scan waits for the lock of every row a write is still inserting (EXPLAIN on MariaDB 10.11: eq_ref on PRIMARY
   * for the join).
   */
  async delete(runner: Queryable, ids: string[]): Promise<void> {
    const derived = ids.map(() => 'SELECT ? AS id').join(' UNION ALL ');
    await runner.query(`DELETE o FROM outbox o JOIN (${derived}) published ON o.id = published.id`, ids);
  }

  /** Records a refused publish: its attempts so far, the broker's reason (its first 500 characters), and when it was parked (null: not). */
  async recordRefusal(runner: Queryable, id: string, attempts: number, reason: string, parkedAt: Date | null): Promise<void> {
    await runner.query('UPDATE outbox SET attempts = ?, last_error = ?, parked_at = ? WHERE id = ?', [
      attempts,
      reason.slice(0, 500),
      parkedAt,
      id,
    ]);
  }
}
