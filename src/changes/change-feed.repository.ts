import { Database } from '../database/database.js';
import type { SqlFragment } from '../people/visibility.js';
import { Injectable } from '@nestjs/common';
import type { Queryable } from '../database/statement-batch.js';
import { EVERY_PARTITION } from '../config/outbox-config.js';

/** A sequenced change as readers get it. */
export interface SequencedChange {
  seq: number;
  /** When it was numbered, in ms on the database's clock. */
  numberedAt: number;
  payload: string;
}

/** Where the numbering stands: the highest number given, and the highest deleted by retention (0: none). */
export interface FeedState {
  lastSeq: number;
  prunedThrough: number;
}

/** A page and the feed's state, read in one statement and so from one snapshot. */
export interface FeedPage extends FeedState {
  changes: SequencedChange[];
  /** When the change numbered lastSeq was numbered (undefined: none was yet), and the database's clock now; ms. */
  lastNumberedAt?: number;
  now: number;
  /** For a filtered read: the highest number it looked at (every change up to it that the filter keeps is in it). */
  scannedThrough?: number;
}

/** How many numbers a filtered read of the log looks at, at most (see page). */
export const FILTERED_SCAN = 10_000;

/**
 * `change_log` as the change feed sees it: a row per change, inserted in the change's transaction (seq NULL, by
 * OutboxWriter), numbered by the sequencer after it committed, read by seq, and deleted once past retention and
 * passed by every other reader of the log.
 */
@Injectable()
export class ChangeFeedRepository {
  constructor(private readonly database: Database) {}

  /**
   * Up to `limit` changes after `afterSeq` in seq order, with the state of the numbering. One statement reads
   * both from the same snapshot, so a page never misses rows that retention deleted after the state was read.
   */
  async page(afterSeq: number, limit: number, only?: SqlFragment): Promise<FeedPage> {
    // A reader of some changes only (a requester's) looks at FILTERED_SCAN numbers at a time, so a read costs the same
    // however few of them it keeps; the page says how far it looked.
    // The window starts past what retention deleted, where a read from the oldest change goes on (see readPage).
    const window = only
      ? ` AND seq <= GREATEST(?, (SELECT pruned_through FROM change_feed_sequencer WHERE id = 1)) + ? AND ${only.sql}`
      : '';
    const rows = (await this.database.query(
      `SELECT s.last_seq AS lastSeq, s.pruned_through AS prunedThrough, s.last_sequenced_at AS lastSequencedAt, NOW(3) AS now,
              c.seq, c.sequenced_at AS sequencedAt, c.payload
       FROM change_feed_sequencer s
       LEFT JOIN (SELECT seq, sequenced_at, payload FROM change_log WHERE seq > ?${window} ORDER BY seq LIMIT ?) c ON 1 = 1
       WHERE s.id = 1`,
      [afterSeq, ...(only ? [afterSeq, FILTERED_SCAN, ...only.params] : []), limit],
    )) as Array<{
      lastSeq: string;
      prunedThrough: string;
      lastSequencedAt: Date | null;
      now: Date;
      seq: string | null;
      sequencedAt: Date | null;
      payload: string | null;
    }>;
    const changes = rows
      .filter((row) => row.seq !== null)
      .map((row) => ({ seq: Number(row.seq), numberedAt: row.sequencedAt!.getTime(), payload: row.payload! }))
      .sort((a, b) => a.seq - b.seq);
    const [state] = rows;
    const lastSeq = Number(state?.lastSeq ?? 0);
    const from = Math.max(afterSeq, Number(state?.prunedThrough ?? 0));
    return {
      ...(only && { scannedThrough: Math.max(from, Math.min(from + FILTERED_SCAN, lastSeq)) }),
      lastSeq,
      prunedThrough: Number(state?.prunedThrough ?? 0),
      lastNumberedAt: state?.lastSequencedAt?.getTime(),
      now: (state?.now ?? new Date()).getTime(),
      changes,
    };
  }

  /**
   * The number just before the first change numbered at or after `since` (by sequenced_at, which rises with seq,
   * so every later number is too), or the highest number given when none was; with the state, from one snapshot.
   */
  async startAt(since: Date): Promise<FeedState & { afterSeq: number }> {
    const [row] = (await this.database.query(
      `SELECT s.last_seq AS lastSeq, s.pruned_through AS prunedThrough,
              (SELECT seq FROM change_log WHERE sequenced_at >= ? ORDER BY sequenced_at, seq LIMIT 1) AS firstSeq
       FROM change_feed_sequencer s WHERE s.id = 1`,
      [since],
    )) as Array<{ lastSeq: string; prunedThrough: string; firstSeq: string | null }>;
    const lastSeq = Number(row.lastSeq);
    return { lastSeq, prunedThrough: Number(row.prunedThrough), afterSeq: row.firstSeq === null ? lastSeq : Number(row.firstSeq) - 1 };
  }

  /** The highest number given so far. */
  async lastSeq(): Promise<number> {
    const [row] = (await this.database.query('SELECT last_seq FROM change_feed_sequencer WHERE id = 1')) as Array<{ last_seq: string }>;
    return Number(row?.last_seq ?? 0);
  }

  /** Whether a committed change waits for its number (a cheap look before the sequencer opens a transaction). */
  async anyUnsequenced(runner: Queryable): Promise<boolean> {
    const rows = (await runner.query('SELECT 1 FROM change_log WHERE seq IS NULL LIMIT 1')) as unknown[];
    return rows.length > 0;
  }

  /** Ids of committed changes without a number, lowest first (uq_change_feed_seq, the NULLs in id order). */
  async unsequenced(runner: Queryable, limit: number): Promise<string[]> {
    const rows = (await runner.query(`SELECT id FROM change_log WHERE seq IS NULL ORDER BY id LIMIT ${limit}`)) as Array<{ id: string }>;
    return rows.map((row) => String(row.id));
  }

  /**
   * Gives `ids` the numbers `firstSeq`, `firstSeq` + 1, … in order, stamped with the sequencer row's
   * last_sequenced_at (set just before, in the same transaction). The pairs go in as a derived table joined on
   * the primary key, so the update locks those rows only (as OutboxRepository.delete, for the same reason).
   */
  async assign(runner: Queryable, ids: string[], firstSeq: number): Promise<void> {
    const derived = ids.map(() => 'SELECT ? AS id, ? AS seq').join(' UNION ALL ');
    const params = ids.flatMap((id, index) => [id, firstSeq + index]);
    await runner.query(
      `UPDATE change_log c JOIN (${derived}) numbered ON c.id = numbered.id SET c.seq = numbered.seq,
         c.sequenced_at = (SELECT last_sequenced_at FROM change_feed_sequencer WHERE id = 1)`,
      params,
    );
  }

  /**
   * The oldest sequenced changes after `afterSeq`: their numbers and whether they may go, that is whether the
   * database's clock says they are older than `retentionMs` and every other reader of the log has passed them:
   * the relay (no change waiting for RabbitMQ comes before them), each enabled webhook endpoint (its
   * cursor is not before them) and the mail notifier (src/mail/outbound/). A disabled endpoint holds nothing back:
   * when it is enabled again, it goes on from the oldest change still kept; nor does a notifier whose cursor has
   * not moved for a day (mail switched off), which goes on from there too.
   */
  async oldest(runner: Queryable, afterSeq: number, limit: number, retentionMs: number): Promise<Array<{ seq: number; expired: boolean }>> {
    const rows = (await runner.query(
      `SELECT seq, sequenced_at < NOW(3) - INTERVAL ? MICROSECOND
                   AND seq <= (SELECT COALESCE(MIN(c.delivered_through), ${Number.MAX_SAFE_INTEGER})
                               FROM webhook_cursors c JOIN webhooks w ON w.id = c.webhook_id WHERE w.enabled = 1)
                   AND seq <= (SELECT COALESCE(MIN(notified_through), ${Number.MAX_SAFE_INTEGER}) FROM mail_notifier
                               WHERE moved_at > NOW(3) - INTERVAL 1 DAY)
                   AND seq < (SELECT COALESCE(MIN(seq), ${Number.MAX_SAFE_INTEGER}) FROM change_log
                              WHERE partition_no IN (?) AND relay_status = 'pending') AS expired
       FROM change_log WHERE seq > ? ORDER BY seq LIMIT ${limit}`,
      [retentionMs * 1000, EVERY_PARTITION, afterSeq],
    )) as Array<{ seq: string; expired: number | string }>;
    return rows.map((row) => ({ seq: Number(row.seq), expired: Number(row.expired) === 1 }));
  }

  /**
   * Deletes the changes numbered after `afterSeq` up to `throughSeq` (a range of uq_change_feed_seq) that RabbitMQ
   * has: a parked one stays for the operator (docs/events.md).
   */
  async deleteRange(runner: Queryable, afterSeq: number, throughSeq: number): Promise<void> {
    await runner.query("DELETE FROM change_log WHERE seq > ? AND seq <= ? AND relay_status = 'published'", [afterSeq, throughSeq]);
  }
}
