import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { Database } from '../database/database.js';
import type { TransactionWrites } from '../database/transaction.js';
import type { Queryable } from '../database/statement-batch.js';
import { type KeysetPageRequest, keysetSql } from '../common/paging/keyset-page.js';
import type { CommentVisibility } from './comment-visibility.enum.js';
import type { CommentResponse } from './dto/comment-response.dto.js';
import { DESK, type Viewer } from '../common/context/viewer.js';
import { hiddenFrom } from '../people/visibility.js';
import { mergedView } from '../tickets/merges/merges.repository.js';

interface CommentRow {
  id: string | number;
  ticket_id: string | number;
  body: string;
  author: string | null;
  visibility: CommentVisibility;
  created_at: Date;
  /** Only in streamed rows: the attachments the comment names, "3,7", or null. */
  attachment_ids?: string | null;
}

/** What a new comment stores besides its ticket and its time. */
export type CommentFields = Pick<CommentResponse, 'body' | 'author' | 'visibility'>;

const COMMENT_COLUMNS = 'id, ticket_id, body, author, visibility, created_at';

/** `ticket_comments` in plain SQL like the tickets, mapped once from rows to the wire shape. */
@Injectable()
export class CommentsRepository {
  constructor(private readonly database: Database) {}

  /** Inserts the comment in the caller's transaction; answers its id. */
  async insert(transaction: Queryable, ticketId: string, fields: CommentFields, now: Date): Promise<number> {
    const { insertId } = (await transaction.query(
      'INSERT INTO ticket_comments (ticket_id, body, author, visibility, created_at) VALUES (?, ?, ?, ?, ?)',
      [ticketId, fields.body, fields.author, fields.visibility, now],
    )) as { insertId: number | string };
    return Number(insertId);
  }

  /** Inserts comments of one ticket, each with its own time, among the writes of the caller's transaction (an import's). */
  async insertAll(
    writes: TransactionWrites,
    ticketId: number,
    comments: ReadonlyArray<CommentFields & { createdAt: Date }>,
  ): Promise<void> {
    if (comments.length === 0) return;
    await writes.query('INSERT INTO ticket_comments (ticket_id, body, author, visibility, created_at) VALUES ?', [
      comments.map((comment) => [ticketId, comment.body, comment.author, comment.visibility, comment.createdAt]),
    ]);
  }

  /** The ticket's comments (those merged into it too) of the page's id range (one more than its limit, see keysetSql). */
  async page(ticketId: string, page: KeysetPageRequest, viewer: Viewer = DESK): Promise<CommentResponse[]> {
    const range = keysetSql(page);
    const where = `ticket_id IN (?)${hiddenFrom(viewer, 'comments')}`;
    const rows: CommentRow[] = await this.database.query(`SELECT ${COMMENT_COLUMNS} FROM ticket_comments WHERE ${where}${range.sql}`, [
      await mergedView(this.database, ticketId),
      ...range.params,
    ]);
    return rows.map(commentFromRow);
  }

  /** Every comment of the ticket (an unpaged `page`), oldest first, as a stream of rows (commentJson writes each). */
  async stream(ticketId: string, page: KeysetPageRequest, viewer: Viewer = DESK): Promise<Readable> {
    const range = keysetSql(page);
    // A streamed row carries its comment's attachments itself: there is no page to look them up for afterwards.
    const attachments =
      '(SELECT GROUP_CONCAT(attachment_id ORDER BY attachment_id) FROM comment_attachments WHERE comment_id = ticket_comments.id)';
    return this.database.stream(
      `SELECT ${COMMENT_COLUMNS}, ${attachments} AS attachment_ids FROM ticket_comments WHERE ticket_id IN (?)${hiddenFrom(viewer, 'comments')}${range.sql}`,
      [await mergedView(this.database, ticketId), ...range.params],
    );
  }

  async findOne(ticketId: string, commentId: string, viewer: Viewer = DESK): Promise<CommentResponse | undefined> {
    const where = `ticket_id IN (?) AND id = ?${hiddenFrom(viewer, 'comments')}`;
    const [row]: CommentRow[] = await this.database.query(`SELECT ${COMMENT_COLUMNS} FROM ticket_comments WHERE ${where}`, [
      await mergedView(this.database, ticketId),
      commentId,
    ]);
    return row && commentFromRow(row);
  }
}

/** A comment's JSON, as res.json writes it in an array (the unpaged list is streamed, see sendJsonArray). */
export function commentJson(row: CommentRow): string {
  const comment = commentFromRow(row);
  // As the paged list: attachmentIds only on comments that name attachments, so the others keep their old bytes.
  return JSON.stringify(row.attachment_ids ? { ...comment, attachmentIds: row.attachment_ids.split(',').map(Number) } : comment);
}

function commentFromRow(row: CommentRow): CommentResponse {
  return {
    id: Number(row.id),
    ticketId: Number(row.ticket_id),
    body: row.body,
    author: row.author,
    visibility: row.visibility,
    createdAt: row.created_at,
  };
}
