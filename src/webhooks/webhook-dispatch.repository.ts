import { Injectable } from '@nestjs/common';
import type { QueryRunner } from 'typeorm';
import { Database } from '../database/database.js';
import type { DeliveryStatus } from './webhook-deliveries.repository.js';
import { WEBHOOK_TYPE_SQL } from './webhook-message.js';

/** A delivery this replica claimed, with what sending it needs. */
/** What became of an attempt's outcome: recorded, fenced out by another replica's claim, or its delivery deleted. */
export type RecordOutcome = 'recorded' | 'lease_lost' | 'gone';

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

/**
 * An enabled endpoint's cursor in the change log: the seq its deliveries are made through, the last change recorded
 * before it was created (it gets none of those), and the kinds it takes (null: all).
 */
export interface EndpointPlace {
  webhookId: number;
  deliveredThrough: number;
  afterChangeId: number;
  eventTypes: string | null;
}

export interface EndpointsState {
  enabled: EndpointPlace[];
  /** The enabled endpoints with deliveries due. */
  due: number[];
  /** The highest seq the sequencer has given. */
  lastSeq: number;
}

/**
 * An endpoint's cursor to move from `from` towards `to`, making its deliveries of the changes in between: all of them,
 * or the first `deliveries` of them (the cursor then stops at the last one made).
 */
export interface LogMove {
  webhookId: number;
  from: number;
  to: number;
  deliveries: number;
  afterChangeId: number;
  eventTypes: string | null;
}

/**
 * `webhook_deliveries` as the dispatcher of every replica works it: due deliveries, claims, outcomes, postponing
 * and purging. Claims are conditional updates of one row by its primary key (decision 29: no GET_LOCK, no SKIP
 * LOCKED), and an outcome is written only while the claim's owner and epoch still hold.
 */
/**
 * One connection of the dispatcher's own, held while the application runs, as the relay does: in the pool's queue
 * its statements would wait behind every request of a write load, several times per delivery. A statement that
 * fails drops the connection, and the next one opens another. Statements run one after another, each after the
 * previous one has finished: a multi-statement transaction that fails part-way (a lock wait timeout rolls back only
 * its statement) must be rolled back before anything else runs on the connection, or the next START TRANSACTION
 * would commit its first half and the next read would see an old snapshot.
 */
class DispatcherConnection {
  private runner?: Promise<QueryRunner>;
  /** The statement running now. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly database: Database) {}

  query<T>(sql: string, params: unknown[] = []): Promise<T> {
    const run = this.queue.then(() => this.run<T>(sql, params));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Gives the connection back. */
  async close(): Promise<void> {
    const runner = this.runner;
    this.runner = undefined;
    await (await runner?.catch(() => undefined))?.release();
  }

  private async run<T>(sql: string, params: unknown[]): Promise<T> {
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
    try {
      return await this.database.workerConnection();
    } catch (error) {
      this.runner = undefined;
      throw error;
    }
  }
}

/**
 * `webhook_deliveries` as the dispatcher of every replica works it: due deliveries, claims, outcomes, postponing
 * and purging. Claims are conditional updates of one row by its primary key (decision 29: no GET_LOCK, no SKIP
 * LOCKED), and an outcome is written only while the claim's owner and epoch still hold.
 */
@Injectable()
export class WebhookDispatchRepository {
  /**
   * Looking for due deliveries and claiming them goes over one connection, recording outcomes over another: an
   * attempt holds its slot until its outcome is recorded, so outcomes queued behind the next poll's statements kept
   * every slot waiting on them (a delivery's slot was held about 300 ms at 400 deliveries/s, nearly all of it in
   * that queue). The two touch different rows: a poll claims pending rows nobody holds, a record writes rows its
   * replica holds.
   */
  private readonly polls: DispatcherConnection;
  private readonly outcomes: DispatcherConnection;

  constructor(database: Database) {
    this.polls = new DispatcherConnection(database);
    this.outcomes = new DispatcherConnection(database);
  }

  /** Gives the dispatcher's connections back. */
  async closeDispatcherConnection(): Promise<void> {
    await Promise.all([this.polls.close(), this.outcomes.close()]);
  }

  /**
   * The enabled endpoints (or those of them in `only`) with their place in the change log and whether they have
   * deliveries due (some may be in flight or queued behind one in flight), and how far the log is numbered. Whether
   * one is due is read from its earliest pending delivery with a time (a paused one has none), one entry of its due
   * index whatever its backlog.
   */
  async dueEndpoints(only?: number[]): Promise<EndpointsState> {
    const rows = (await this.polls.query(
      `SELECT w.id, c.delivered_through, c.after_change_id, w.event_types, s.last_seq,
              (SELECT d.next_attempt_at FROM webhook_deliveries d FORCE INDEX (idx_webhook_deliveries_endpoint_due)
               WHERE d.webhook_id = w.id AND d.status = 'pending' AND d.next_attempt_at IS NOT NULL
               ORDER BY d.next_attempt_at LIMIT 1) <= NOW(3) AS due
       FROM change_feed_sequencer s JOIN webhooks w ON w.enabled = 1 JOIN webhook_cursors c ON c.webhook_id = w.id
       WHERE s.id = 1${only ? ' AND w.id IN (?)' : ''}`,
      only ? [only] : [],
    )) as Array<{
      id: string;
      delivered_through: string;
      after_change_id: string;
      event_types: string | null;
      last_seq: string;
      due: number | string | null;
    }>;
    return {
      enabled: rows.map((row) => ({
        webhookId: Number(row.id),
        deliveredThrough: Number(row.delivered_through),
        afterChangeId: Number(row.after_change_id),
        eventTypes: row.event_types,
      })),
      due: rows.filter((row) => Number(row.due) === 1).map((row) => Number(row.id)),
      lastSeq: rows.length > 0 ? Number(rows[0].last_seq) : 0,
    };
  }

  /** How many pending deliveries each of `webhookIds` has, counted up to `cap`: one bounded range of its due index each. */
  async pendingUpTo(webhookIds: number[], cap: number): Promise<Map<number, number>> {
    if (webhookIds.length === 0) return new Map();
    const one = `(SELECT ? AS id, COUNT(*) AS pending FROM (SELECT 1 FROM webhook_deliveries FORCE INDEX (idx_webhook_deliveries_endpoint_due)
                   WHERE webhook_id = ? AND status = 'pending' LIMIT ${cap}) d)`;
    const rows = (await this.polls.query(
      webhookIds.map(() => one).join(' UNION ALL '),
      webhookIds.flatMap((id) => [id, id]),
    )) as Array<{ id: string; pending: string }>;
    return new Map(rows.map((row) => [Number(row.id), Number(row.pending)]));
  }

  /**
   * Makes each endpoint's deliveries of the changes numbered in (`from`, `to`] of the kinds it subscribes to, at most
   * `deliveries` of them (pending, due now, in seq order), and moves its cursor from `from` to the last change it
   * made a delivery of, or to `to` when it made fewer, in one transaction and one round trip. An
   * endpoint whose cursor is no longer at `from` (another replica moved it) gets nothing: the move is a conditional
   * update of its cursor row, and its deliveries are inserted only when that update changed it. The cursor is a row
   * of its own, so an endpoint's update held open holds up none of this. The changes are copied by INSERT … SELECT
   * at READ COMMITTED, a read that locks no change_log row, so the relay and the sequencer never wait for it.
   * A delivery made behind a pending one of the same (endpoint, ticket) is due no earlier than that one's next
   * attempt, as postponeChain keeps the deliveries queued behind a failed one: so an endpoint's "due" deliveries are
   * ones the due read can take, and one ticket's retry does not hold up the probes of an endpoint not proven.
   * Answers the endpoints moved, and those of them it made deliveries for (a cursor may move over changes of kinds
   * its endpoint does not take, making none).
   */
  async deliverChanges(moves: LogMove[]): Promise<{ moved: number[]; made: number[] }> {
    if (moves.length === 0) return { moved: [], made: [] };
    const sorted = [...moves].sort((a, b) => a.webhookId - b.webhookId);
    const changes = 'seq > ? AND seq <= ? AND id > ? AND (? IS NULL OR FIND_IN_SET(event_type, ?))';
    const statements = sorted.flatMap(({ deliveries }) => [
      `UPDATE webhook_cursors
       SET delivered_through = COALESCE((SELECT seq FROM change_log WHERE ${changes} ORDER BY seq LIMIT 1 OFFSET ${deliveries - 1}), ?)
       WHERE webhook_id = ? AND delivered_through = ?`,
      'SET @moved = ROW_COUNT()',
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, type, ticket_id, payload, occurred_at, created_at, next_attempt_at)
       SELECT ?, event_id, event_type, ${WEBHOOK_TYPE_SQL}, ticket_id, payload, occurred_at, NOW(3),
              (SELECT GREATEST(NOW(3), COALESCE(MAX(d.next_attempt_at), NOW(3))) FROM webhook_deliveries d
               WHERE d.webhook_id = ? AND d.ticket_id = change_log.ticket_id AND d.status = 'pending')
       FROM change_log WHERE @moved = 1 AND ${changes.replace('seq <= ?', 'seq <= (SELECT delivered_through FROM webhook_cursors WHERE webhook_id = ?)')}
       ORDER BY seq`,
    ]);
    const params = sorted.flatMap(({ webhookId, from, to, afterChangeId, eventTypes }) => [
      ...[from, to, afterChangeId, eventTypes, eventTypes],
      to,
      webhookId,
      from,
      webhookId,
      webhookId,
      ...[from, webhookId, afterChangeId, eventTypes, eventTypes],
    ]);
    const results = await this.polls.query<WriteResult[]>(
      `SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\nSTART TRANSACTION;\n${statements.join(';\n')};\nCOMMIT`,
      params,
    );
    // Each endpoint's statements: its cursor's UPDATE (one row or none), SET @moved, its deliveries' INSERT.
    const changedBy = (statement: number) =>
      sorted.filter((_, index) => (results[statement + index * 3]?.affectedRows ?? 0) > 0).map(({ webhookId }) => webhookId);
    return { moved: changedBy(2), made: changedBy(4) };
  }

  /**
   * Deliveries that may be attempted now, up to `limit` of each endpoint named: pending, due, not claimed (or
   * their claim lapsed), and the oldest pending one of their (endpoint, ticket), so a ticket's events reach an
   * endpoint in order while other tickets go on. Each endpoint's are read oldest due first from its own range of
   * the endpoint's due index, which stops after `limit` matches, so an endpoint's backlog never fills another's
   * place; the rows a read passes over are those queued behind a delivery in flight (a failed attempt pushes its
   * successors back with it: postponeChain).
   */
  async due(endpoints: Array<{ webhookId: number; limit: number }>): Promise<Array<{ id: number; webhookId: number }>> {
    if (endpoints.length === 0) return [];
    const one = `(SELECT d.id, d.webhook_id FROM webhook_deliveries d FORCE INDEX (idx_webhook_deliveries_endpoint_due)
       WHERE d.webhook_id = ? AND d.status = 'pending' AND d.next_attempt_at <= NOW(3) AND (d.lease_until IS NULL OR d.lease_until < NOW(3))
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                         WHERE e.webhook_id = d.webhook_id AND e.ticket_id = d.ticket_id AND e.status = 'pending' AND e.id < d.id)
       ORDER BY d.next_attempt_at, d.id LIMIT ?)`;
    const rows = (await this.polls.query(
      endpoints.map(() => one).join(' UNION ALL '),
      endpoints.flatMap(({ webhookId, limit }) => [webhookId, limit]),
    )) as Array<{ id: string; webhook_id: string }>;
    return rows.map((row) => ({ id: Number(row.id), webhookId: Number(row.webhook_id) }));
  }

  /**
   * The deliveries queued behind a failed one (same endpoint and ticket) cannot go before it: they are made due
   * no earlier than its next attempt, so the due read does not pass over them on every poll meanwhile.
   */
  async postponeChain(delivery: { id: number; webhookId: number; ticketId: number }, delayMs: number): Promise<void> {
    await this.outcomes.query(
      `UPDATE webhook_deliveries SET next_attempt_at = GREATEST(next_attempt_at, NOW(3) + INTERVAL ? MICROSECOND)
       WHERE webhook_id = ? AND ticket_id = ? AND status = 'pending' AND id > ?`,
      [delayMs * 1000, delivery.webhookId, delivery.ticketId, delivery.id],
    );
  }

  /**
   * Claims each delivery that is still pending and unclaimed (or whose claim lapsed); the epoch goes up with every
   * claim. One transaction, one round trip, one commit for the batch, each UPDATE naming one row by its primary
   * key (in id order, so that two replicas claiming overlapping batches lock in the same order). Answers the ids
   * this call claimed: only those may be attempted (a row this replica claimed earlier is still its own, but is
   * already in flight).
   */
  async claim(ids: number[], owner: string, ttlMs: number): Promise<number[]> {
    if (ids.length === 0) return [];
    const sorted = [...ids].sort((a, b) => a - b);
    const update = `UPDATE webhook_deliveries SET lease_owner = ?, lease_epoch = lease_epoch + 1, lease_until = NOW(3) + INTERVAL ? MICROSECOND
       WHERE id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until < NOW(3))`;
    const results = await this.inOneTransaction(
      this.polls,
      sorted.map(() => update).join(';\n'),
      sorted.flatMap((id) => [owner, ttlMs * 1000, id]),
    );
    return sorted.filter((_, index) => results[index]?.affectedRows === 1);
  }

  /**
   * Runs `statements` (joined by `;\n`) in one transaction in one round trip on `connection` (a failure rolls back
   * there), and answers their results.
   */
  private async inOneTransaction(connection: DispatcherConnection, statements: string, params: unknown[]): Promise<WriteResult[]> {
    const results = await connection.query<WriteResult[]>(`START TRANSACTION;\n${statements};\nCOMMIT`, params);
    return results.slice(1, -1);
  }

  /** The deliveries just claimed (claim's answer) with their endpoints' URL and signing secrets. */
  async claimed(ids: number[], owner: string): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) return [];
    const rows = (await this.polls.query(
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
   * whether it was recorded, its claim was lost (another replica took it over), or its delivery is gone (its
   * endpoint was deleted meanwhile, with its deliveries).
   */
  async record(attempts: Array<{ id: number; owner: string; epoch: number; attempt: AttemptRecord }>): Promise<RecordOutcome[]> {
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
    const results = await this.inOneTransaction(this.outcomes, sorted.map(() => update).join(';\n'), params);
    const recorded = new Set(sorted.filter((_, index) => results[index]?.affectedRows === 1).map(({ id }) => id));
    const unrecorded = attempts.filter(({ id }) => !recorded.has(id)).map(({ id }) => id);
    const remaining =
      unrecorded.length === 0
        ? new Set<number>()
        : new Set(
            ((await this.outcomes.query('SELECT id FROM webhook_deliveries WHERE id IN (?)', [unrecorded])) as Array<{ id: string }>).map(
              (row) => Number(row.id),
            ),
          );
    return attempts.map(({ id }) => (recorded.has(id) ? 'recorded' : remaining.has(id) ? 'lease_lost' : 'gone'));
  }

  /**
   * Deletes the pending deliveries of endpoints that no longer exist: deliveries made before the change log, by a
   * write that read an endpoint just before its delete, or by a look that made them while the endpoint was being
   * deleted. Such a delivery is never due (its endpoint is not enabled).
   */
  async purgeOrphans(): Promise<void> {
    const rows = (await this.polls.query(
      `SELECT DISTINCT d.webhook_id FROM webhook_deliveries d FORCE INDEX (idx_webhook_deliveries_due)
       WHERE d.status = 'pending' AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id)`,
    )) as Array<{ webhook_id: string }>;
    if (rows.length === 0) return;
    await this.polls.query("DELETE FROM webhook_deliveries WHERE webhook_id IN (?) AND status = 'pending'", [
      rows.map((row) => row.webhook_id),
    ]);
  }

  /** Deletes up to `limit` finished deliveries created more than `days` ago; how many. */
  async purgeFinished(days: number, limit: number): Promise<number> {
    const result = (await this.polls.query(
      `DELETE FROM webhook_deliveries WHERE status IN ('succeeded', 'failed') AND created_at < NOW(3) - INTERVAL ? DAY LIMIT ?`,
      [days, limit],
    )) as WriteResult;
    return result.affectedRows;
  }
}
