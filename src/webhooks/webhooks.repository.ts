import { Database } from '../database/database.js';
import { Injectable } from '@nestjs/common';
import { type KeysetPageRequest, keysetSql } from '../common/paging/keyset-page.js';
import type { Queryable } from '../database/statement-batch.js';

/** An endpoint as stored; `eventTypes` empty means every kind. */
export interface WebhookRecord {
  id: number;
  url: string;
  description: string | null;
  eventTypes: string[];
  enabled: boolean;
  disabledReason: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: Date | null;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields a create or a PATCH sets. */
export interface WebhookFields {
  url?: string;
  description?: string | null;
  eventTypes?: string[];
  enabled?: boolean;
}

interface WebhookRow {
  id: string | number;
  url: string;
  description: string | null;
  event_types: string | null;
  enabled: number;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface WriteResult {
  affectedRows: number;
  insertId: number | string;
}

const COLUMNS =
  'id, url, description, event_types, enabled, disabled_reason, secret, previous_secret, previous_secret_until, failing_since, created_at, updated_at';

/** `webhooks`: the endpoints. Event kinds are stored comma-separated (NULL: all), which FIND_IN_SET matches when deliveries are made from the change log. */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly database: Database) {}

  /**
   * The endpoint and its cursor in the change log, in one transaction: it gets the changes recorded from now on (those
   * after the last one recorded so far, from the highest number given so far). Where the log stands is read by a
   * plain SELECT, which locks nothing: read by the INSERT itself (INSERT … SELECT), it would hold a shared lock on the
   * sequencer's row and on the newest change-log row until the commit, holding up the sequencer and every write's
   * insert meanwhile, and a deadlock with the sequencer's numbering was measured.
   */
  async insert(fields: Required<WebhookFields>, secret: string, now: Date): Promise<number> {
    const [log] = (await this.database.query(
      'SELECT s.last_seq AS lastSeq, (SELECT COALESCE(MAX(id), 0) FROM change_log) AS lastChangeId FROM change_feed_sequencer s WHERE s.id = 1',
    )) as Array<{ lastSeq: string; lastChangeId: string }>;
    return this.database.transaction(async (transaction) => {
      const { insertId } = (await transaction.query(
        `INSERT INTO webhooks (url, description, event_types, enabled, secret, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [fields.url, fields.description, eventTypesColumn(fields.eventTypes), fields.enabled ? 1 : 0, secret, now, now],
      )) as WriteResult;
      await transaction.query('INSERT INTO webhook_cursors (webhook_id, delivered_through, after_change_id) VALUES (?, ?, ?)', [
        insertId,
        log.lastSeq,
        log.lastChangeId,
      ]);
      return Number(insertId);
    });
  }

  async page(page: KeysetPageRequest): Promise<WebhookRecord[]> {
    const range = keysetSql(page);
    const rows: WebhookRow[] = await this.database.query(`SELECT ${COLUMNS} FROM webhooks WHERE TRUE${range.sql}`, range.params);
    return rows.map(fromRow);
  }

  async findOne(id: string | number, manager: Queryable = this.database): Promise<WebhookRecord | undefined> {
    const [row] = (await manager.query(`SELECT ${COLUMNS} FROM webhooks WHERE id = ?`, [id])) as WebhookRow[];
    return row && fromRow(row);
  }

  /** Applies the fields given; enabling clears the reason it was disabled and the failure streak. */
  async update(id: string, fields: WebhookFields, now: Date): Promise<boolean> {
    const sets: string[] = ['updated_at = ?'];
    const params: unknown[] = [now];
    const set = (assignment: string, value: unknown) => {
      sets.push(assignment);
      params.push(value);
    };
    if (fields.url !== undefined) set('url = ?', fields.url);
    if (fields.description !== undefined) set('description = ?', fields.description);
    if (fields.eventTypes !== undefined) set('event_types = ?', eventTypesColumn(fields.eventTypes));
    if (fields.enabled === true) sets.push('enabled = 1, disabled_reason = NULL, failing_since = NULL');
    if (fields.enabled === false) sets.push("enabled = 0, disabled_reason = 'disabled through the API'");
    const result = (await this.database.query(`UPDATE webhooks SET ${sets.join(', ')} WHERE id = ?`, [...params, id])) as WriteResult;
    // Enabled again, an endpoint goes on from its place in the change log, or from the oldest change still kept.
    if (fields.enabled === true && result.affectedRows === 1) {
      const [log] = (await this.database.query('SELECT pruned_through AS prunedThrough FROM change_feed_sequencer WHERE id = 1')) as Array<{
        prunedThrough: string;
      }>;
      await this.database.query('UPDATE webhook_cursors SET delivered_through = GREATEST(delivered_through, ?) WHERE webhook_id = ?', [
        log.prunedThrough,
        id,
      ]);
    }
    return result.affectedRows === 1;
  }

  /**
   * The endpoint stops taking deliveries first (one short update), then its deliveries go `batch` at a time, each
   * batch a statement of its own (one statement for months of deliveries would hold their locks until it ended),
   * and its row last. Deleting again finishes a delete that was cut short.
   */
  async delete(id: string, batch = 1_000): Promise<boolean> {
    await this.database.query("UPDATE webhooks SET enabled = 0, disabled_reason = 'being deleted' WHERE id = ?", [id]);
    // Its cursor first: a look can no longer make it deliveries (one under way meanwhile leaves them to purgeOrphans).
    await this.database.query('DELETE FROM webhook_cursors WHERE webhook_id = ?', [id]);
    const deleteBatch = () => this.database.query('DELETE FROM webhook_deliveries WHERE webhook_id = ? LIMIT ?', [id, batch]);
    while (((await deleteBatch()) as WriteResult).affectedRows === batch);
    const result = (await this.database.query('DELETE FROM webhooks WHERE id = ?', [id])) as WriteResult;
    return result.affectedRows === 1;
  }

  /**
   * The new secret signs from now on; the old one too, for `overlapMs` more. Not while a previous rotation's overlap
   * runs (false): a second rotation would drop the secret receivers may still be using.
   */
  async rotate(id: string, secret: string, overlapMs: number, now: Date): Promise<boolean> {
    const result = (await this.database.query(
      `UPDATE webhooks SET previous_secret = secret, previous_secret_until = NOW(3) + INTERVAL ? MICROSECOND, secret = ?, updated_at = ?
       WHERE id = ? AND (previous_secret_until IS NULL OR previous_secret_until <= NOW(3))`,
      [overlapMs * 1000, secret, now, id],
    )) as WriteResult;
    return result.affectedRows === 1;
  }

  /** Starts the endpoint's failure streak, unless one runs already. */
  async startFailing(id: number, since: Date): Promise<void> {
    await this.database.query('UPDATE webhooks SET failing_since = ? WHERE id = ? AND failing_since IS NULL', [since, id]);
  }

  async stopFailing(id: number): Promise<void> {
    await this.database.query('UPDATE webhooks SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL', [id]);
  }

  /** Disables the endpoint in the caller's transaction; true only for the one caller that changed it. */
  async disable(manager: Queryable, id: number, reason: string, now: Date): Promise<boolean> {
    const result = (await manager.query(
      'UPDATE webhooks SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ? AND enabled = 1',
      [reason.slice(0, 255), now, id],
    )) as WriteResult;
    return result.affectedRows === 1;
  }
}

function eventTypesColumn(eventTypes: string[]): string | null {
  return eventTypes.length === 0 ? null : eventTypes.join(',');
}

function fromRow(row: WebhookRow): WebhookRecord {
  return {
    id: Number(row.id),
    url: row.url,
    description: row.description,
    eventTypes: row.event_types ? row.event_types.split(',') : [],
    enabled: Number(row.enabled) === 1,
    disabledReason: row.disabled_reason,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretUntil: row.previous_secret_until,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
