import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database.js';
import type { Queryable } from '../../database/statement-batch.js';

export type RecordedOutcome = 'created' | 'commented' | 'ignored';

export interface RecordedMessage {
  outcome: RecordedOutcome;
  ticketId: number | null;
  reason: string | null;
}

export interface MessageRecord {
  messageId: string;
  sender: string | null;
  outcome: RecordedOutcome;
  reason: string | null;
  ticketId: number | null;
  commentId: number | null;
}

/** The message was recorded before: what it made is there already. */
export class AlreadyRecorded extends Error {
  constructor(readonly messageId: string) {
    super(`Message <${messageId}> was handled before`);
  }
}

interface WriteResult {
  affectedRows: number;
}

/** `mail_messages` and `mail_threads`: the messages received, and the Message-ID each ticket's mails are chained to. */
@Injectable()
export class MailMessagesRepository {
  constructor(private readonly database: Database) {}

  async find(messageId: string): Promise<RecordedMessage | undefined> {
    const [row] = await this.database.rows<{ outcome: RecordedOutcome; ticketId: string | null; reason: string | null }>(
      'SELECT outcome, ticket_id AS ticketId, reason FROM mail_messages WHERE message_id = ?',
      [messageId],
    );
    return row && { outcome: row.outcome, ticketId: row.ticketId === null ? null : Number(row.ticketId), reason: row.reason };
  }

  /**
   * Records the message in the caller's transaction; AlreadyRecorded when it was recorded before, or by a transaction
   * that commits meanwhile (the unique key's lock makes this one wait for it), unless that one ignored it: a copy
   * ignored before (the mailing list's copy of a mail also sent to the desk) gives way to this one.
   */
  async record(db: Queryable, row: MessageRecord): Promise<void> {
    const values = [row.messageId, row.sender, row.outcome, row.reason?.slice(0, 500) ?? null, row.ticketId, row.commentId];
    const insert = `INTO mail_messages (message_id, sender, outcome, reason, ticket_id, comment_id, received_at) VALUES (?, ?, ?, ?, ?, ?, NOW(3))`;
    if (row.outcome === 'ignored') {
      const result = (await db.query(`INSERT IGNORE ${insert}`, values)) as WriteResult;
      if (result.affectedRows === 0) throw new AlreadyRecorded(row.messageId);
      return;
    }
    // Each column takes this message's value only over an ignored row; outcome last, as the others test it.
    const takeOver = (column: string) => `${column} = IF(outcome = 'ignored', VALUES(${column}), ${column})`;
    await db.query(
      `INSERT ${insert} ON DUPLICATE KEY UPDATE ${['sender', 'reason', 'ticket_id', 'comment_id', 'received_at', 'outcome'].map(takeOver).join(', ')}`,
      values,
    );
    // The row is this write's when it names what this write made (no other transaction can have made the same).
    const [stored] = (await db.query('SELECT ticket_id AS ticketId, comment_id AS commentId FROM mail_messages WHERE message_id = ?', [
      row.messageId,
    ])) as Array<{ ticketId: string | null; commentId: string | null }>;
    if (Number(stored.ticketId) !== row.ticketId || (stored.commentId === null ? null : Number(stored.commentId)) !== row.commentId) {
      throw new AlreadyRecorded(row.messageId);
    }
  }

  /** How many tickets and comments mail from `sender` made in the last hour. */
  async madeInLastHour(sender: string): Promise<number> {
    const [row] = await this.database.rows<{ made: string | number }>(
      `SELECT COUNT(*) AS made FROM mail_messages
       WHERE sender = ? AND received_at > NOW(3) - INTERVAL 1 HOUR AND outcome IN ('created', 'commented')`,
      [sender],
    );
    return Number(row.made);
  }

  /**
   * The ticket of the first of `messageIds` that the desk received or sent for one, or chained a ticket's mails to;
   * undefined when none is known.
   */
  async ticketReferenced(messageIds: readonly string[]): Promise<number | undefined> {
    const ids = messageIds.slice(0, 100);
    if (ids.length === 0) return undefined;
    const rows = await this.database.rows<{ messageId: string; ticketId: string }>(
      `SELECT message_id AS messageId, ticket_id AS ticketId FROM mail_messages WHERE message_id IN (?) AND ticket_id IS NOT NULL
       UNION ALL SELECT message_id, ticket_id FROM mail_notifications WHERE message_id IN (?)
       UNION ALL SELECT root_message_id, ticket_id FROM mail_threads WHERE root_message_id IN (?)`,
      [ids, ids, ids],
    );
    const byId = new Map(rows.map((row) => [row.messageId, Number(row.ticketId)]));
    for (const id of ids) if (byId.has(id)) return byId.get(id);
    return undefined;
  }

  /** Makes each root the Message-ID its ticket's mails are chained to, for the tickets that have none yet. */
  async chainTo(db: Queryable, roots: ReadonlyArray<[ticketId: number, rootMessageId: string]>): Promise<void> {
    if (roots.length === 0) return;
    await db.query(
      `INSERT IGNORE INTO mail_threads (ticket_id, root_message_id) VALUES ${roots.map(() => '(?, ?)').join(', ')}`,
      roots.flat(),
    );
  }

  /** The Message-IDs of each ticket's thread, for those that have one. */
  async rootsOf(db: Queryable, ticketIds: readonly number[]): Promise<Map<number, string>> {
    if (ticketIds.length === 0) return new Map();
    const rows = (await db.query('SELECT ticket_id AS ticketId, root_message_id AS root FROM mail_threads WHERE ticket_id IN (?)', [
      ticketIds,
    ])) as Array<{ ticketId: string; root: string }>;
    return new Map(rows.map((row) => [Number(row.ticketId), row.root]));
  }
}
