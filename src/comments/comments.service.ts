import type { Readable } from 'node:stream';
import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { HistoryAction } from '../tickets/history-action.js';
import { TicketHistoryRepository } from '../tickets/ticket-history.repository.js';
import { IdempotencyService } from '../idempotency/idempotency.service.js';
import { OutboxRelay } from '../outbox/outbox.relay.js';
import { OutboxWriter } from '../outbox/outbox.writer.js';
import { commentAddedEvent, routingKeyOf } from '../tickets/events/ticket-event.js';
import { type KeysetPage, type KeysetPageRequest, keysetPage } from '../common/paging/keyset-page.js';
import { assertTicketExists } from '../tickets/ticket-not-found.js';
import { anonymousWrite, type WriteContext } from '../common/context/write-context.js';
import { CommentVisibility } from './comment-visibility.enum.js';
import { CommentsRepository } from './comments.repository.js';
import type { CommentRequest } from './dto/comment-request.dto.js';
import type { CommentResponse } from './dto/comment-response.dto.js';
import { WithinRequestDeadline, withinRequestDeadline } from '../database/request-deadline.js';
import { inTransaction } from '../database/transaction.js';

/** A ticket's conversation; its SQL is CommentsRepository's. */
@Injectable()
export class CommentsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly relay: OutboxRelay,
    private readonly idempotency: IdempotencyService,
    private readonly comments: CommentsRepository,
    private readonly history: TicketHistoryRepository,
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
      const fields = {
        body: request.body,
        author: request.author ?? context.actor ?? null,
        visibility: request.visibility ?? CommentVisibility.PUBLIC,
      };
      const id = await this.comments.insert(transaction, ticketId, fields, now);
      const comment: CommentResponse = { id, ticketId: Number(ticketId), ...fields, createdAt: now };
      await this.history.record(transaction.later, {
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

  /**
   * Every comment (v1 without `limit`) as a stream of rows, opened at the first (see PooledStatement.stream). Opened
   * at its end instead, it holds no row: only then is the ticket looked up, for its 404.
   */
  async stream(ticketId: string, page: KeysetPageRequest): Promise<Readable> {
    const rows = await this.comments.stream(ticketId, page);
    if (rows.readableLength === 0) await withinRequestDeadline(() => assertTicketExists(this.dataSource, ticketId));
    return rows;
  }

  @WithinRequestDeadline()
  async list(ticketId: string, page: KeysetPageRequest): Promise<KeysetPage<CommentResponse>> {
    const comments = await this.comments.page(ticketId, page);
    // A ticket's rows prove it exists; only an empty page needs the extra look.
    if (comments.length === 0) await assertTicketExists(this.dataSource, ticketId);
    return keysetPage(comments, page);
  }

  @WithinRequestDeadline()
  async findOne(ticketId: string, commentId: string): Promise<CommentResponse> {
    const comment = await this.comments.findOne(ticketId, commentId);
    if (comment) return comment;
    await assertTicketExists(this.dataSource, ticketId);
    throw new NotFoundException(`Comment not found with id: ${commentId}`);
  }
}
