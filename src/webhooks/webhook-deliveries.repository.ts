import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, QueryRunner } from 'typeorm';
import type { KeysetPageRequest } from '../common/paging/keyset-page.js';
import type { Queryable } from '../database/statement-batch.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** A delivery as the API shows it. */
export interface DeliveryRecord {
  id: number;
  eventId: string;
  type: string;
  ticketId: number;
  occurredAt: Date;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  durationMs: number | null;
}

/** What an event brings to the fan-out. */
export interface FanOutEvent {
  eventId: string;
  eventType: string;
  type: string;
  ticketId: number;
  payload: string;
  occurredAt: Date;
}

/** A delivery this replica claimed, with what sending it needs. */
export interface ClaimedDelivery {
  id: number;
  epoch: number;
  webhookId: number;
  eventId: string;
  type: string;
  ticketId: number;
  payload: string;
  occurredAt: Date;
  attempts: number;
  url: string;
  /** The current secret first, then the previous one while it still signs. */
  secrets: string[];
  failingSince: Date | null;
}

/** The outcome of one attempt, as recorded. */
export interface AttemptRecord {
  status: DeliveryStatus;
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** Null when the delivery is finished. */
  nextAttemptInMs: number | null;
}

interface WriteResult {
  affectedRows: number;
  insertId: number | string;
}

const API_COLUMNS = `id, event_id AS eventId, type, ticket_id AS ticketId, occurred_at AS occurredAt, status, attempts,
  last_attempt_at AS lastAttemptAt, last_status_code AS lastStatusCode, last_error AS lastError,
  next_attempt_at AS nextAttemptAt, duration_ms AS durationMs`;

/** Columns copied when a delivery is made again from an earlier one (redeliver, replay). */
const COPIED = 'webhook_id, event_id, event_type, type, ticket_id, payload, occurred_at';

/**
 * `webhook_deliveries`: one row per (event, endpoint), written with the event; claimed, attempted and finished by
 * the dispatcher of any replica. Claims are conditional updates of one row by its primary key (decision 29: no
 * GET_LOCK, no SKIP LOCKED), and an outcome is written only while the claim's owner and epoch still hold.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  /** The dispatcher's own connection (see dispatcherQuery). */
  private runner?: Promise<QueryRunner>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The dispatcher's statements go over one connection of its own, held while the application runs, as the relay
   * does: in the pool's queue they would wait behind every request of a write load, several times per delivery. A
   * statement that fails drops the connection, and the next one opens another. Statements sent together queue on
   * it in order; each of its transactions is one round trip (START TRANSACTION … COMMIT).
   */
  private async dispatcherQuery<T>(sql: string, params: unknown[] = []): Promise<T> {
    const runner = await (this.runner ??= this.connect());
    try {
      return (await runner.query(sql, params)) as T;
    } catch (error) {
      if ((await this.runner) === runner) this.runner = undefined;
      await runner.query('ROLLBACK').catch(() => undefined);
      await runner.release().catch(() => undefined);
      throw error;
    }
  }

  private async connect(): Promise<QueryRunner> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      return runner;
    } catch (error) {
      this.runner = undefined;
      throw error;
    }
  }

  /** Gives the dispatcher's connection back. */
  async closeDispatcherConnection(): Promise<void> {
    const runner = this.runner;
    this.runner = undefined;
    await (await runner?.catch(() => undefined))?.release();
  }

  /**
   * In the caller's transaction (a statement of its batch): a pending delivery for every enabled endpoint that
   * subscribes to the event's kind. One statement however many endpoints there are, and none when there are none.
   */
  async fanOut(manager: Queryable, event: FanOutEvent): Promise<void> {
    await manager.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, type, ticket_id, payload, occurred_at, created_at, next_attempt_at)
       SELECT id, ?, ?, ?, ?, ?, ?, NOW(3), NOW(3) FROM webhooks WHERE enabled = 1 AND (event_types IS NULL OR FIND_IN_SET(?, event_types))`,
      [event.eventId, event.eventType, event.type, event.ticketId, event.payload, event.occurredAt, event.eventType],
    );
  }

  /**
   * Deliveries that may be attempted now: pending, due, not claimed (or their claim lapsed), of an enabled
   * endpoint, and the oldest pending one of their (endpoint, ticket), so a ticket's events reach an endpoint in
   * order while other tickets go on. Answers ids, oldest due first. The deliveries are read in the order of the
   * due index (status, next_attempt_at, and the id InnoDB appends), which is the order asked for, so the read
   * stops after `limit` matches instead of sorting every pending row (a join with webhooks would make MariaDB sort:
   * the endpoint is looked up per row instead); the rows it passes over are those queued
   * behind a delivery in flight (a failed attempt pushes its successors back with it: postponeChain).
   */
  async due(limit: number): Promise<Array<{ id: number; chain: string }>> {
    const rows = (await this.dispatcherQuery(
      `SELECT d.id, d.webhook_id, d.ticket_id FROM webhook_deliveries d FORCE INDEX (idx_webhook_deliveries_due)
       WHERE d.status = 'pending' AND d.next_attempt_at <= NOW(3) AND (d.lease_until IS NULL OR d.lease_until < NOW(3))
         AND (SELECT w.enabled FROM webhooks w WHERE w.id = d.webhook_id) = 1
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                         WHERE e.webhook_id = d.webhook_id AND e.ticket_id = d.ticket_id AND e.status = 'pending' AND e.id < d.id)
       ORDER BY d.next_attempt_at, d.id LIMIT ?`,
      [limit],
    )) as Array<{ id: string; webhook_id: string; ticket_id: string }>;
    return rows.map((row) => ({ id: Number(row.id), chain: `${row.webhook_id}:${row.ticket_id}` }));
  }

  /**
   * The deliveries queued behind a failed one (same endpoint and ticket) cannot go before it: they are made due
   * no earlier than its next attempt, so the due read does not pass over them on every poll meanwhile.
   */
  async postponeChain(delivery: { id: number; webhookId: number; ticketId: number }, delayMs: number): Promise<void> {
    await this.dispatcherQuery(
      `UPDATE webhook_deliveries SET next_attempt_at = GREATEST(next_attempt_at, NOW(3) + INTERVAL ? MICROSECOND)
       WHERE webhook_id = ? AND ticket_id = ? AND status = 'pending' AND id > ?`,
      [delayMs * 1000, delivery.webhookId, delivery.ticketId, delivery.id],
    );
  }

  /** A disabled endpoint's pending deliveries wait outside the due index (next_attempt_at NULL) until it is enabled. */
  async pause(webhookId: string | number, manager: Queryable = this.dataSource): Promise<void> {
    await manager.query("UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending'", [webhookId]);
  }

  async resume(webhookId: string | number): Promise<void> {
    await this.dataSource.query(
      "UPDATE webhook_deliveries SET next_attempt_at = NOW(3) WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at IS NULL",
      [webhookId],
    );
  }

  /**
   * Claims each delivery that is still pending and unclaimed (or whose claim lapsed); the epoch goes up with every
   * claim. One transaction, one round trip, one commit for the batch, each UPDATE naming one row by its primary
   * key (in id order, so that two replicas claiming overlapping batches lock in the same order). Which claims
   * held is read by claimed().
   */
  async claim(ids: number[], owner: string, ttlMs: number): Promise<void> {
    if (ids.length === 0) return;
    const sorted = [...ids].sort((a, b) => a - b);
    const update = `UPDATE webhook_deliveries SET lease_owner = ?, lease_epoch = lease_epoch + 1, lease_until = NOW(3) + INTERVAL ? MICROSECOND
       WHERE id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until < NOW(3))`;
    await this.inOneTransaction(
      sorted.map(() => update).join(';\n'),
      sorted.flatMap((id) => [owner, ttlMs * 1000, id]),
    );
  }

  /**
   * Runs `statements` (joined by `;\n`) in one transaction in one round trip on the dispatcher's connection (a
   * failure rolls back there), and answers their results.
   */
  private async inOneTransaction(statements: string, params: unknown[]): Promise<WriteResult[]> {
    const results = await this.dispatcherQuery<WriteResult[]>(`START TRANSACTION;\n${statements};\nCOMMIT`, params);
    return results.slice(1, -1);
  }

  /** The claimed deliveries with their endpoints' URL and signing secrets. */
  async claimed(ids: number[], owner: string): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) return [];
    const rows = (await this.dispatcherQuery(
      `SELECT d.id, d.lease_epoch, d.webhook_id, d.event_id, d.type, d.ticket_id, d.payload, d.occurred_at, d.attempts,
              w.url, w.secret, IF(w.previous_secret_until > NOW(3), w.previous_secret, NULL) AS previous_secret, w.failing_since
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
       WHERE d.id IN (?) AND d.lease_owner = ? AND d.lease_until > NOW(3) ORDER BY d.id`,
      [ids, owner],
    )) as Array<Record<string, unknown>>;
    return rows.map((row) => ({
      id: Number(row.id),
      epoch: Number(row.lease_epoch),
      webhookId: Number(row.webhook_id),
      eventId: String(row.event_id),
      type: String(row.type),
      ticketId: Number(row.ticket_id),
      payload: String(row.payload),
      occurredAt: row.occurred_at as Date,
      attempts: Number(row.attempts),
      url: String(row.url),
      secrets: [row.secret as string, ...(row.previous_secret ? [row.previous_secret as string] : [])],
      failingSince: (row.failing_since as Date | null) ?? null,
    }));
  }

  /**
   * Records attempts and releases their claims, each only while `owner` still holds it with its epoch: one
   * transaction (one round trip, one commit) for attempts that ended about the same time. Answers, per attempt,
   * whether it was recorded.
   */
  async record(attempts: Array<{ id: number; owner: string; epoch: number; attempt: AttemptRecord }>): Promise<boolean[]> {
    if (attempts.length === 0) return [];
    const update = `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, last_attempt_at = ?, last_status_code = ?,
              last_error = ?, duration_ms = ?, next_attempt_at = IF(? IS NULL, NULL, NOW(3) + INTERVAL ? MICROSECOND),
              lease_owner = NULL, lease_until = NULL
       WHERE id = ? AND lease_owner = ? AND lease_epoch = ?`;
    const sorted = [...attempts].sort((a, b) => a.id - b.id);
    const params = sorted.flatMap(({ id, owner, epoch, attempt }) => [
      attempt.status,
      attempt.attemptedAt,
      attempt.statusCode,
      attempt.error?.slice(0, 500) ?? null,
      attempt.durationMs,
      attempt.nextAttemptInMs,
      (attempt.nextAttemptInMs ?? 0) * 1000,
      id,
      owner,
      epoch,
    ]);
    const results = await this.inOneTransaction(sorted.map(() => update).join(';\n'), params);
    const recorded = new Map(sorted.map(({ id }, index) => [id, results[index]?.affectedRows === 1]));
    return attempts.map(({ id }) => recorded.get(id)!);
  }

  /** An endpoint's deliveries, newest first: the page's cursor holds the last id shown (`afterId`, read as "before"). */
  async page(webhookId: string, page: KeysetPageRequest): Promise<DeliveryRecord[]> {
    const before = page.afterId !== undefined ? ' AND id < ?' : '';
    const rows = (await this.dataSource.query(
      `SELECT ${API_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ?${before} ORDER BY id DESC LIMIT ?`,
      [webhookId, ...(page.afterId !== undefined ? [page.afterId] : []), (page.limit ?? 50) + 1],
    )) as DeliveryRecord[];
    return rows.map(deliveryFromRow);
  }

  async findOne(webhookId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    const [row] = (await this.dataSource.query(`SELECT ${API_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND id = ?`, [
      webhookId,
      deliveryId,
    ])) as DeliveryRecord[];
    return row && deliveryFromRow(row);
  }

  /** A new pending delivery of the same event to the same endpoint, behind the ticket's other pending ones; its id. */
  async redeliver(webhookId: string, deliveryId: string): Promise<number | undefined> {
    const result = (await this.dataSource.query(
      `INSERT INTO webhook_deliveries (${COPIED}, created_at, next_attempt_at)
       SELECT ${COPIED}, NOW(3), NOW(3) FROM webhook_deliveries WHERE webhook_id = ? AND id = ?`,
      [webhookId, deliveryId],
    )) as WriteResult;
    return result.affectedRows === 1 ? Number(result.insertId) : undefined;
  }

  /**
   * New pending deliveries, in the order the events happened, of every event this endpoint has a delivery record
   * of with occurred_at in [since, until) and a kind it subscribes to now (`eventTypes` empty: all); how many.
   */
  async replay(webhookId: string, since: Date, until: Date, eventTypes: string[]): Promise<number> {
    const kinds = eventTypes.length > 0 ? ' AND event_type IN (?)' : '';
    const result = (await this.dataSource.query(
      `INSERT INTO webhook_deliveries (${COPIED}, created_at, next_attempt_at)
       SELECT ${COPIED}, NOW(3), NOW(3) FROM webhook_deliveries
       WHERE id IN (SELECT MIN(id) FROM webhook_deliveries WHERE webhook_id = ? AND occurred_at >= ? AND occurred_at < ?${kinds} GROUP BY event_id)
       ORDER BY occurred_at, id`,
      [webhookId, since, until, ...(eventTypes.length > 0 ? [eventTypes] : [])],
    )) as WriteResult;
    return result.affectedRows;
  }

  /** Pending deliveries of all endpoints (the same on every replica). */
  async pendingCount(): Promise<number> {
    const [row] = (await this.dataSource.query("SELECT COUNT(*) AS pending FROM webhook_deliveries WHERE status = 'pending'")) as Array<{
      pending: string;
    }>;
    return Number(row.pending);
  }

  /** Deletes up to `limit` finished deliveries created more than `days` ago; how many. */
  async purgeFinished(days: number, limit: number): Promise<number> {
    const result = (await this.dispatcherQuery(
      `DELETE FROM webhook_deliveries WHERE status IN ('succeeded', 'failed') AND created_at < NOW(3) - INTERVAL ? DAY LIMIT ?`,
      [days, limit],
    )) as WriteResult;
    return result.affectedRows;
  }
}

function deliveryFromRow(row: DeliveryRecord): DeliveryRecord {
  return {
    ...row,
    id: Number(row.id),
    ticketId: Number(row.ticketId),
    attempts: Number(row.attempts),
    lastStatusCode: row.lastStatusCode === null ? null : Number(row.lastStatusCode),
    durationMs: row.durationMs === null ? null : Number(row.durationMs),
  };
}
