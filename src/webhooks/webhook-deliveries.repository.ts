import { Database } from '../database/database.js';
import { Injectable } from '@nestjs/common';
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
 * `webhook_deliveries` as the API sees it: pausing and resuming a disabled endpoint's deliveries, the deliveries
 * list, redeliver and replay. The dispatcher's
 * statements (claims, outcomes) are WebhookDispatchRepository's.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly database: Database) {}

  /** A disabled endpoint's pending deliveries wait outside the due index (next_attempt_at NULL) until it is enabled. */
  async pause(webhookId: string | number, manager: Queryable = this.database): Promise<void> {
    await manager.query("UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending'", [webhookId]);
  }

  async resume(webhookId: string | number): Promise<void> {
    await this.database.query(
      "UPDATE webhook_deliveries SET next_attempt_at = NOW(3) WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at IS NULL",
      [webhookId],
    );
  }

  /** An endpoint's deliveries, newest first: the page's cursor holds the last id shown (`afterId`, read as "before"). */
  async page(webhookId: string, page: KeysetPageRequest): Promise<DeliveryRecord[]> {
    const before = page.afterId !== undefined ? ' AND id < ?' : '';
    const rows = (await this.database.query(
      `SELECT ${API_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ?${before} ORDER BY id DESC LIMIT ?`,
      [webhookId, ...(page.afterId !== undefined ? [page.afterId] : []), (page.limit ?? 50) + 1],
    )) as DeliveryRecord[];
    return rows.map(deliveryFromRow);
  }

  async findOne(webhookId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    const [row] = (await this.database.query(`SELECT ${API_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND id = ?`, [
      webhookId,
      deliveryId,
    ])) as DeliveryRecord[];
    return row && deliveryFromRow(row);
  }

  /** A new pending delivery of the same event to the same endpoint, behind the ticket's other pending ones; its id. */
  async redeliver(webhookId: string, deliveryId: string): Promise<number | undefined> {
    const result = (await this.database.query(
      `INSERT INTO webhook_deliveries (${COPIED}, created_at, next_attempt_at)
       SELECT ${COPIED}, NOW(3), NOW(3) FROM webhook_deliveries WHERE webhook_id = ? AND id = ?`,
      [webhookId, deliveryId],
    )) as WriteResult;
    return result.affectedRows === 1 ? Number(result.insertId) : undefined;
  }

  /**
   * New pending deliveries, in the order the events were recorded (their first deliveries' ids: a ticket's events
   * get them under the ticket's row lock, in commit order, while occurred_at is read before that lock), of every event this endpoint has a delivery record
   * of with occurred_at in [since, until) and a kind it subscribes to now (`eventTypes` empty: all); how many.
   */
  async replay(webhookId: string, since: Date, until: Date, eventTypes: string[]): Promise<number> {
    const kinds = eventTypes.length > 0 ? ' AND event_type IN (?)' : '';
    const result = (await this.database.query(
      `INSERT INTO webhook_deliveries (${COPIED}, created_at, next_attempt_at)
       SELECT ${COPIED}, NOW(3), NOW(3) FROM webhook_deliveries
       WHERE id IN (SELECT MIN(id) FROM webhook_deliveries WHERE webhook_id = ? AND occurred_at >= ? AND occurred_at < ?${kinds} GROUP BY event_id)
       ORDER BY id`,
      [webhookId, since, until, ...(eventTypes.length > 0 ? [eventTypes] : [])],
    )) as WriteResult;
    return result.affectedRows;
  }

  /** How many numbered changes the enabled endpoint furthest behind in the change log has yet to reach (0: none enabled). */
  async changesBehind(): Promise<number> {
    const [row] = (await this.database.query(
      `SELECT COALESCE(MAX(s.last_seq - c.delivered_through), 0) AS behind
       FROM change_feed_sequencer s JOIN webhooks w ON w.enabled = 1 JOIN webhook_cursors c ON c.webhook_id = w.id WHERE s.id = 1`,
    )) as Array<{ behind: string }>;
    return Math.max(0, Number(row?.behind ?? 0));
  }

  /** Pending deliveries of all endpoints (the same on every replica). */
  async pendingCount(): Promise<number> {
    const [row] = (await this.database.query("SELECT COUNT(*) AS pending FROM webhook_deliveries WHERE status = 'pending'")) as Array<{
      pending: string;
    }>;
    return Number(row.pending);
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
