import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database.js';
import type { Queryable } from '../../database/statement-batch.js';
import type { ChangeContext } from '../../outbox/outbox.writer.js';

/** A change of the log that may be mailed, as the notifier reads it. */
export interface NotifiableChange {
  seq: number;
  eventId: string;
  eventType: string;
  ticketId: number;
  payload: string;
  context: ChangeContext;
}

/** A notification as it is written, its message rendered (nodemailer's message options, as JSON). */
export interface NewNotification {
  eventId: string;
  eventType: string;
  ticketId: number;
  recipient: string;
  messageId: string;
  message: string;
}

export type NotificationStatus = 'pending' | 'sent' | 'failed';

/** A notification claimed for sending. */
export interface ClaimedNotification {
  id: number;
  epoch: number;
  message: string;
  attempts: number;
  createdAt: Date;
}

/** A notification as GET /api/v2/tickets/{id}/notifications lists it. */
export interface NotificationRow {
  id: number;
  eventId: string;
  eventType: string;
  recipient: string;
  messageId: string;
  status: NotificationStatus;
  attempts: number;
  lastAnswer: string | null;
  createdAt: Date;
  nextAttemptAt: Date | null;
  finishedAt: Date | null;
}

/** How an attempt ended, as recorded. */
export type AttemptEnd =
  { status: 'sent'; answer: string } | { status: 'failed'; answer: string } | { status: 'pending'; answer: string; retryInMs: number };

interface WriteResult {
  affectedRows: number;
}

/** The most message bytes one INSERT of notifications carries. */
const INSERT_BYTES = 4 * 1024 * 1024;

/** Kinds of change that may be mailed (src/mail/outbound/notification-rules.ts decides which are). */
const MAILED_KINDS = ['CREATED', 'UPDATED', 'COMMENT_ADDED', 'MERGED'];

/**
 * `mail_notifier` (the notifier's cursor in the change log) and `mail_notifications` (each mail to send, claimed
 * one row at a time by its primary key like webhook deliveries, decision 29: an outcome is written only while the
 * claim's owner and epoch still hold).
 */
@Injectable()
export class MailNotificationsRepository {
  constructor(private readonly database: Database) {}

  /** The notifier's place in the log; a notifier that never ran starts at the changes numbered from now on. */
  async cursor(): Promise<number> {
    await this.database.query(
      `INSERT IGNORE INTO mail_notifier (id, notified_through, moved_at)
       SELECT 1, last_seq, NOW(3) FROM change_feed_sequencer WHERE id = 1`,
    );
    const [row] = await this.database.rows<{ through: string }>('SELECT notified_through AS through FROM mail_notifier WHERE id = 1', []);
    return Number(row?.through ?? 0);
  }

  /**
   * The changes numbered after `afterSeq` that may be mailed, at most `limit`, and the seq up to which they are all
   * of them (the last one's when the limit was reached, the numbering's high mark otherwise).
   */
  async changesAfter(afterSeq: number, limit: number): Promise<{ changes: NotifiableChange[]; through: number }> {
    const [state] = await this.database.rows<{ lastSeq: string }>('SELECT last_seq AS lastSeq FROM change_feed_sequencer WHERE id = 1', []);
    const lastSeq = Number(state?.lastSeq ?? 0);
    if (lastSeq <= afterSeq) return { changes: [], through: afterSeq };
    const rows = await this.database.rows<{
      seq: string;
      eventId: string;
      eventType: string;
      ticketId: string;
      payload: string;
      context: string | null;
    }>(
      `SELECT seq, event_id AS eventId, event_type AS eventType, ticket_id AS ticketId, payload, context FROM change_log
       WHERE seq > ? AND seq <= ? AND event_type IN (?) ORDER BY seq LIMIT ${limit}`,
      [afterSeq, lastSeq, MAILED_KINDS],
    );
    const changes = rows.map((row) => ({
      seq: Number(row.seq),
      eventId: row.eventId,
      eventType: row.eventType,
      ticketId: Number(row.ticketId),
      payload: row.payload,
      context: row.context ? (JSON.parse(row.context) as ChangeContext) : {},
    }));
    return { changes, through: changes.length === limit ? changes[limit - 1].seq : lastSeq };
  }

  /** Inserts the notifications (each once per change and recipient) in the caller's transaction. */
  async insert(db: Queryable, notifications: NewNotification[]): Promise<void> {
    // In statements of at most INSERT_BYTES of messages each, well under max_allowed_packet (16 MiB by default).
    for (let start = 0; start < notifications.length;) {
      let end = start;
      for (
        let bytes = 0;
        end < notifications.length && (end === start || bytes + notifications[end].message.length <= INSERT_BYTES);
        end++
      ) {
        bytes += notifications[end].message.length;
      }
      const chunk = notifications.slice(start, end);
      await db.query(
        `INSERT IGNORE INTO mail_notifications (event_id, event_type, ticket_id, recipient, message_id, message, created_at, next_attempt_at)
         VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, NOW(3), NOW(3))').join(', ')}`,
        chunk.flatMap((n) => [n.eventId, n.eventType, n.ticketId, n.recipient, n.messageId, n.message]),
      );
      start = end;
    }
  }

  /**
   * A notifier whose cursor has not moved for a day (mail was switched off) goes on from the changes numbered now, so
   * that switching mail on again sends no pile of stale notifications. Answers how many changes it passed over.
   */
  async skipStale(): Promise<number> {
    const [row] = await this.database.rows<{ behind: string | number | null }>(
      `SELECT s.last_seq - n.notified_through AS behind FROM mail_notifier n JOIN change_feed_sequencer s ON s.id = 1
       WHERE n.id = 1 AND n.moved_at < NOW(3) - INTERVAL 1 DAY`,
      [],
    );
    if (!row) return 0;
    await this.database.query(
      `UPDATE mail_notifier SET notified_through = GREATEST(notified_through, (SELECT last_seq FROM change_feed_sequencer WHERE id = 1)),
         moved_at = NOW(3) WHERE id = 1 AND moved_at < NOW(3) - INTERVAL 1 DAY`,
    );
    return Number(row.behind ?? 0);
  }

  /** Says the notifier runs, when it last said so (or moved) more than a minute ago: one write a minute at most. */
  async stillRunning(): Promise<void> {
    await this.database.query('UPDATE mail_notifier SET moved_at = NOW(3) WHERE id = 1 AND moved_at < NOW(3) - INTERVAL 1 MINUTE');
  }

  /** Moves the cursor from `from` to `to` unless another replica moved it meanwhile (then answers false). */
  async moveCursor(db: Queryable, from: number, to: number): Promise<boolean> {
    const result = (await db.query(
      'UPDATE mail_notifier SET notified_through = ?, moved_at = NOW(3) WHERE id = 1 AND notified_through = ?',
      [to, from],
    )) as WriteResult;
    return result.affectedRows === 1;
  }

  /** How many notifications wait for an attempt. */
  async pendingCount(): Promise<number> {
    const [row] = await this.database.rows<{ pending: string | number }>(
      "SELECT COUNT(*) AS pending FROM mail_notifications WHERE status = 'pending'",
      [],
    );
    return Number(row.pending);
  }

  /** How many numbered changes the notifier has not read; NaN while it never ran (mail off). */
  async changesBehind(): Promise<number> {
    const [row] = await this.database.rows<{ behind: string | number }>(
      'SELECT s.last_seq - n.notified_through AS behind FROM mail_notifier n JOIN change_feed_sequencer s ON s.id = 1 WHERE n.id = 1',
      [],
    );
    return row ? Math.max(0, Number(row.behind)) : NaN;
  }

  /** Pending notifications due now that no live claim holds, oldest first. */
  async due(limit: number): Promise<number[]> {
    const rows = await this.database.rows<{ id: string }>(
      `SELECT id FROM mail_notifications WHERE status = 'pending' AND next_attempt_at <= NOW(3)
         AND (claim_expires_at IS NULL OR claim_expires_at < NOW(3)) ORDER BY next_attempt_at, id LIMIT ${limit}`,
      [],
    );
    return rows.map((row) => Number(row.id));
  }

  /**
   * Claims each of `ids` that is still due and unclaimed, in one transaction, each UPDATE naming one row by its
   * primary key (in id order, so two replicas lock in the same order); answers those this call claimed, with what
   * sending them needs.
   */
  async claim(ids: number[], owner: string, ttlMs: number): Promise<ClaimedNotification[]> {
    if (ids.length === 0) return [];
    const sorted = [...ids].sort((a, b) => a - b);
    const claimed = await this.database.transaction(async (transaction) => {
      const won: number[] = [];
      for (const id of sorted) {
        const result = (await transaction.query(
          `UPDATE mail_notifications SET owner = ?, epoch = epoch + 1, claim_expires_at = NOW(3) + INTERVAL ? MICROSECOND
           WHERE id = ? AND status = 'pending' AND next_attempt_at <= NOW(3) AND (claim_expires_at IS NULL OR claim_expires_at < NOW(3))`,
          [owner, ttlMs * 1000, id],
        )) as WriteResult;
        if (result.affectedRows === 1) won.push(id);
      }
      return won;
    });
    if (claimed.length === 0) return [];
    const rows = await this.database.rows<{ id: string; epoch: number; message: string; attempts: number; createdAt: Date }>(
      `SELECT id, epoch, message, attempts, created_at AS createdAt FROM mail_notifications WHERE id IN (?) AND owner = ? ORDER BY id`,
      [claimed, owner],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      epoch: Number(row.epoch),
      message: row.message,
      attempts: Number(row.attempts),
      createdAt: row.createdAt,
    }));
  }

  /** Records how an attempt ended and releases the claim, while `owner` still holds it with `epoch`. */
  async recordAttempt(id: number, owner: string, epoch: number, end: AttemptEnd): Promise<boolean> {
    const answer = end.answer.slice(0, 500);
    const result =
      end.status === 'pending'
        ? ((await this.database.query(
            `UPDATE mail_notifications SET attempts = attempts + 1, last_answer = ?, next_attempt_at = NOW(3) + INTERVAL ? MICROSECOND,
               owner = NULL, claim_expires_at = NULL WHERE id = ? AND owner = ? AND epoch = ?`,
            [answer, end.retryInMs * 1000, id, owner, epoch],
          )) as WriteResult)
        : ((await this.database.query(
            `UPDATE mail_notifications SET attempts = attempts + 1, last_answer = ?, status = ?, finished_at = NOW(3),
               owner = NULL, claim_expires_at = NULL WHERE id = ? AND owner = ? AND epoch = ?`,
            [answer, end.status, id, owner, epoch],
          )) as WriteResult);
    return result.affectedRows === 1;
  }

  /** A ticket's notifications, oldest first, after `afterId`. */
  async ofTicket(ticketId: string, afterId: number, limit: number): Promise<NotificationRow[]> {
    const rows = await this.database.rows<Record<string, unknown>>(
      `SELECT id, event_id, event_type, recipient, message_id, status, attempts, last_answer, created_at, next_attempt_at, finished_at
       FROM mail_notifications WHERE ticket_id = ? AND id > ? ORDER BY id LIMIT ${limit}`,
      [ticketId, afterId],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      eventId: String(row.event_id),
      eventType: String(row.event_type),
      recipient: String(row.recipient),
      messageId: String(row.message_id),
      status: row.status as NotificationStatus,
      attempts: Number(row.attempts),
      lastAnswer: (row.last_answer as string | null) ?? null,
      createdAt: row.created_at as Date,
      nextAttemptAt: row.status === 'pending' ? (row.next_attempt_at as Date) : null,
      finishedAt: (row.finished_at as Date | null) ?? null,
    }));
  }
}
