import { Database } from '../database/database.js';
import type { Readable } from 'node:stream';
import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { HistoryAction } from '../tickets/history-action.js';
import { TicketHistoryRepository } from '../tickets/ticket-history.repository.js';
import { IdempotencyService } from '../idempotency/idempotency.service.js';
import { OutboxWriter } from '../outbox/outbox.writer.js';
import { commentAddedEvent, routingKeyOf } from '../tickets/events/ticket-event.js';
import { type KeysetPage, type KeysetPageRequest, keysetPage } from '../common/paging/keyset-page.js';
import { assertTicketExists } from '../tickets/ticket-not-found.js';
import { anonymousWrite, type WriteContext } from '../common/context/write-context.js';
import { CommentVisibility } from './comment-visibility.enum.js';
import { TicketWriteHooks } from '../tickets/ticket-write-hooks.js';
import { type CommentFields, CommentsRepository } from './comments.repository.js';
import { AttachmentsRepository } from '../attachments/attachments.repository.js';
import type { CommentRequest } from './dto/comment-request.dto.js';
import type { CommentResponse } from './dto/comment-response.dto.js';
import type { Queryable } from '../database/statement-batch.js';
import type { Transaction } from '../database/transaction.js';
import { DESK, isRequester, type Viewer } from '../common/context/viewer.js';
import { TicketAccessRepository } from '../people/ticket-access.repository.js';
import { assertPublicComment, requesterMayNot } from '../people/requester-writes.js';

/** A ticket's conversation; its SQL is CommentsRepository's. */
@Injectable()
export class CommentsService {
  constructor(
    private readonly database: Database,
    private readonly outbox: OutboxWriter,
    private readonly idempotency: IdempotencyService,
    private readonly comments: CommentsRepository,
    private readonly history: TicketHistoryRepository,
    private readonly hooks: TicketWriteHooks,
    private readonly attachments: AttachmentsRepository,
    private readonly access: TicketAccessRepository,
  ) {}

  /**
   * The comment, its COMMENTED history entry, its COMMENT_ADDED event and its idempotency record commit together. The ticket's row lock
   * orders the comment with the ticket's updates and its delete, so its event never overtakes theirs.
   */
  async add(ticketId: string, request: CommentRequest, context: WriteContext = anonymousWrite()): Promise<CommentResponse> {
    const now = new Date();
    const requester = context.viewer && isRequester(context.viewer) ? context.viewer : undefined;
    // A requester's comment is signed with their address, whatever it names as its author.
    const fields = {
      body: request.body,
      author: requester ? requester.email : (request.author ?? context.actor ?? null),
      visibility: request.visibility ?? CommentVisibility.PUBLIC,
    };
    if (requester) assertPublicComment(fields.visibility);
    const comment = await this.database.transaction(async (transaction) => {
      await assertTicketExists(transaction, ticketId, true);
      if (requester && !(await this.access.allows(requester, ticketId, 'comment', transaction))) {
        throw requesterMayNot('comment on a ticket their organization shares for reading only');
      }
      const attachmentIds = await this.namedAttachments(transaction, ticketId, request.attachmentIds ?? [], requester && context.actor);
      const comment = await this.record(transaction, ticketId, fields, now, context, attachmentIds);
      await context.recordWith?.(transaction, { ticketId: comment.ticketId, commentId: comment.id });
      await this.idempotency.finishCreated(transaction, context.idempotency, comment, null);
      return comment;
    });
    return comment;
  }

  /**
   * In the caller's transaction, which holds the ticket's row lock: the comment, its hooks, its COMMENTED history entry
   * and its COMMENT_ADDED event (a merge's note is written so, in the merge's transaction).
   */
  async record(
    transaction: Transaction,
    ticketId: string,
    fields: CommentFields,
    now: Date,
    context: WriteContext,
    attachmentIds: number[] = [],
  ): Promise<CommentResponse> {
    const id = await this.comments.insert(transaction, ticketId, fields, now);
    const byRequester = context.viewer !== undefined && isRequester(context.viewer);
    await this.hooks.commentAdded(transaction, ticketId, { ...fields, byRequester }, now);
    await this.attachments.linkToComment(transaction.later, id, attachmentIds);
    // A comment that names no attachment answers exactly as before attachments existed.
    const comment: CommentResponse = {
      id,
      ticketId: Number(ticketId),
      ...fields,
      createdAt: now,
      ...(attachmentIds.length > 0 && { attachmentIds }),
    };
    await this.history.record(transaction.later, {
      ticketId: comment.ticketId,
      occurredAt: now,
      actor: context.actor,
      action: HistoryAction.COMMENTED,
      changes: { comment: { from: null, to: comment.id } },
    });
    const causedBy = context.causedBy && { causedBy: context.causedBy };
    const event = commentAddedEvent(comment.ticketId, comment, now);
    await this.outbox.record(transaction.later, event, routingKeyOf('COMMENT_ADDED'), undefined, causedBy || undefined);
    return comment;
  }

  /**
   * The attachments a new comment names, each of its ticket; 400 naming those that are not. They stay share-locked until
   * the comment commits, so no delete takes them meanwhile.
   */
  private async namedAttachments(transaction: Queryable, ticketId: string, ids: number[], uploadedBy?: string | null): Promise<number[]> {
    if (ids.length === 0) return [];
    const found = new Set(await this.attachments.ofTicketAmong(transaction, ticketId, ids, uploadedBy));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) throw new BadRequestException(`Ticket ${ticketId} has no attachment with id ${missing.join(', ')}`);
    return [...ids].sort((a, b) => a - b);
  }

  /** Adds the attachments each comment names, to those that name any. */
  private async withAttachments(comments: CommentResponse[]): Promise<CommentResponse[]> {
    const named = await this.attachments.ofComments(comments.map((comment) => comment.id));
    return comments.map((comment) => (named.has(comment.id) ? { ...comment, attachmentIds: named.get(comment.id) } : comment));
  }

  /**
   * Every comment (v1 without `limit`) as a stream of rows, opened at the first (see Database.stream). Opened
   * at its end instead, it holds no row: only then is the ticket looked up, for its 404.
   */
  async stream(ticketId: string, page: KeysetPageRequest, viewer: Viewer = DESK): Promise<Readable> {
    const rows = await this.comments.stream(ticketId, page, viewer);
    if (rows.readableLength === 0) await assertTicketExists(this.database, ticketId);
    return rows;
  }

  async list(ticketId: string, page: KeysetPageRequest, viewer: Viewer = DESK): Promise<KeysetPage<CommentResponse>> {
    const comments = await this.comments.page(ticketId, page, viewer);
    // A ticket's rows prove it exists; only an empty page needs the extra look.
    if (comments.length === 0) await assertTicketExists(this.database, ticketId);
    const listed = keysetPage(comments, page);
    return { ...listed, items: await this.withAttachments(listed.items) };
  }

  async findOne(ticketId: string, commentId: string, viewer: Viewer = DESK): Promise<CommentResponse> {
    const comment = await this.comments.findOne(ticketId, commentId, viewer);
    if (comment) return (await this.withAttachments([comment]))[0];
    await assertTicketExists(this.database, ticketId);
    throw new NotFoundException(`Comment not found with id: ${commentId}`);
  }
}
