import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { HistoryAction } from '../tickets/history-action.js';
import { recordHistory } from '../tickets/history-entry.js';
import { IdempotencyService } from '../idempotency/idempotency.service.js';
import { OutboxRelay } from '../outbox/outbox.relay.js';
import { OutboxWriter } from '../outbox/outbox.writer.js';
import { commentAddedEvent, routingKeyOf } from '../tickets/events/ticket-event.js';
import { type KeysetPage, type KeysetPageRequest, keysetPage, keysetSql } from '../common/paging/keyset-page.js';
import { assertTicketExists } from '../tickets/ticket-not-found.js';
import { anonymousWrite, type WriteContext } from '../common/context/write-context.js';
import { CommentVisibility } from './comment-visibility.enum.js';
import type { CommentRequest } from './dto/comment-request.dto.js';
import type { CommentResponse } from './dto/comment-response.dto.js';
import { WithinRequestDeadline } from '../database/request-deadline.js';
import { inTransaction } from '../database/transaction.js';

interface CommentRow {
  id: string | number;
  ticket_id: string | number;
  body: string;
  author: string | null;
  visibility: CommentVisibility;
  created_at: Date;
}

const COMMENT_COLUMNS = 'id, ticket_id, body, author, visibility, created_at';

/** A ticket's conversation, in plain SQL like the tickets. */
@Injectable()
export class CommentsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly relay: OutboxRelay,
    private readonly idempotency: IdempotencyService,
  ) {}

  /**
   * The comment, its COMMENTED history entry, its COMMENT_ADDED event and its idempotency record commit together. The ticket's row lock
   * orders the comment with the ticket's updates and its delete, so its event never overtakes theirs.
   */
  @WithinRequestDeadline()
  async add(ticketId: string, request: CommentRequest, context: WriteContext = anonymousWrite()): Promise<CommentResponse> {
    const now = new Date();
    const comment = await inTransaction(this.dataSource, async (transaction) => {
      await assertTicketExists(transaction, ticketId, true);
      const fields = { body: request.body, author: request.author ?? context.actor ?? null, visibility: request.visibility ?? CommentVisibility.PUBLIC };
      const { insertId } = (await transaction.query(
        'INSERT INTO ticket_comments (ticket_id, body, author, visibility, created_at) VALUES (?, ?, ?, ?, ?)',
        [ticketId, fields.body, fields.author, fields.visibility, now],
      )) as { insertId: number | string };
      const comment: CommentResponse = { id: Number(insertId), ticketId: Number(ticketId), ...fields, createdAt: now };
      await recordHistory(transaction.later, {
        ticketId: comment.ticketId,
        occurredAt: now,
        actor: context.actor,
        action: HistoryAction.COMMENTED,
        changes: { comment: { from: null, to: comment.id } },
      });
      await this.outbox.record(transaction.later, commentAddedEvent(comment.ticketId, comment, now), routingKeyOf('COMMENT_ADDED'));
      await this.idempotency.finishCreated(transaction, context.idempotency, comment, null);
      return comment;
    });
    this.relay.kick();
    return comment;
  }

  @WithinRequestDeadline()
  async list(ticketId: string, page: KeysetPageRequest): Promise<KeysetPage<CommentResponse>> {
    const range = keysetSql(page);
    const rows: CommentRow[] = await this.dataSource.query(`SELECT ${COMMENT_COLUMNS} FROM ticket_comments WHERE ticket_id = ?${range.sql}`, [
      ticketId,
      ...range.params,
    ]);
    // A ticket's rows prove it exists; only an empty page needs the extra look.
    if (rows.length === 0) await assertTicketExists(this.dataSource, ticketId);
    return keysetPage(rows.map(commentFromRow), page);
  }

  @WithinRequestDeadline()
  async findOne(ticketId: string, commentId: string): Promise<CommentResponse> {
    const [row]: CommentRow[] = await this.dataSource.query(`SELECT ${COMMENT_COLUMNS} FROM ticket_comments WHERE ticket_id = ? AND id = ?`, [
      ticketId,
      commentId,
    ]);
    if (row) return commentFromRow(row);
    await assertTicketExists(this.dataSource, ticketId);
    throw new NotFoundException(`Comment not found with id: ${commentId}`);
  }
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
