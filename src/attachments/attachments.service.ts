import { Database } from '../database/database.js';
import { DESK, isRequester, type Viewer } from '../common/context/viewer.js';
import { TicketAccessRepository } from '../people/ticket-access.repository.js';
import { requesterMayNot } from '../people/requester-writes.js';
import { ConflictException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import type { AttachmentsConfig } from '../config/attachments-config.js';
import { anonymousWrite, type WriteContext } from '../common/context/write-context.js';
import { type KeysetPage, type KeysetPageRequest, keysetPage } from '../common/paging/keyset-page.js';
import { freeOfRequestDeadline } from '../database/request-deadline.js';
import { isCommitOutcomeUnknown, type Transaction } from '../database/transaction.js';
import { IdempotencyService } from '../idempotency/idempotency.service.js';
import { OutboxWriter } from '../outbox/outbox.writer.js';
import { attachmentEvent, routingKeyOf } from '../tickets/events/ticket-event.js';
import { HistoryAction } from '../tickets/history-action.js';
import { TicketHistoryRepository } from '../tickets/ticket-history.repository.js';
import { assertNotMerged, assertTicketExists } from '../tickets/ticket-not-found.js';
import { TicketWriteHook } from '../tickets/ticket-write-hooks.js';
import { cleanFilename } from './attachment-filename.js';
import { Gate } from './gate.js';
import type { IncomingFile } from './attachment-upload.js';
import { receiveContent } from './content-receiver.js';
import { AttachmentsRepository, responseOf, type StoredAttachment } from './attachments.repository.js';
import { recordedContentType } from './content-sniffing.js';
import { uploadContent } from './upload-fingerprint.js';
import type { AttachmentResponse } from './dto/attachment-response.dto.js';
import { AttachmentStorages } from './storage/attachment-storages.js';
import type { ContentWriter } from './storage/attachment-storage.js';

/** A ticket's attachments: uploads streamed into storage in one transaction with their metadata, history and event. */
@Injectable()
@TicketWriteHook()
export class AttachmentsService implements TicketWriteHook {
  private readonly logger = new Logger(AttachmentsService.name);
  private readonly config: AttachmentsConfig;
  private readonly uploads: Gate;

  constructor(
    private readonly database: Database,
    private readonly outbox: OutboxWriter,
    private readonly idempotency: IdempotencyService,
    private readonly attachments: AttachmentsRepository,
    private readonly history: TicketHistoryRepository,
    private readonly storages: AttachmentStorages,
    private readonly access: TicketAccessRepository,
    config: ConfigService<AppConfig, true>,
  ) {
    this.config = config.get('attachments', { infer: true });
    this.uploads = new Gate(this.config.maxConcurrentUploads);
  }

  get maxFileSize(): number {
    return this.config.maxFileSize;
  }

  /**
   * Before a byte of the body is read: 404 for an unknown ticket, 409 for a merged one or one that has no room for another
   * attachment (both are checked again when the upload is recorded).
   */
  async assertCanAdd(ticketId: string, viewer: Viewer = DESK): Promise<void> {
    await assertTicketExists(this.database, ticketId);
    await assertNotMerged(this.database, ticketId);
    if (isRequester(viewer) && !(await this.access.allows(viewer, ticketId, 'comment'))) {
      throw requesterMayNot('attach files to a ticket their organization shares for reading only');
    }
    await this.assertRoom(this.database, ticketId);
  }

  /**
   * Opens the upload (`open`) once the ticket is known to exist and have room, and streams the file into storage, chunk by chunk, inside one transaction that also holds the metadata row, the ATTACHED
   * history entry, the ATTACHMENT_ADDED event and the idempotency record: a failure at any point (too large, empty,
   * the client gone, the ticket deleted meanwhile) rolls everything back. The transaction lasts as long as the upload,
   * so it runs free of the request's database deadline, which is made for short requests: each statement is bounded
   * by DB_QUERY_TIMEOUT_MS instead, and the whole upload by SERVER_REQUEST_TIMEOUT_MS (Node closes a connection whose
   * request has not fully arrived by then, which fails the stream). The ticket's row is locked only at the end.
   */
  async add(ticketId: string, open: () => Promise<IncomingFile>, context: WriteContext = anonymousWrite()): Promise<AttachmentResponse> {
    await this.assertCanAdd(ticketId, context.viewer);
    // Past ATTACHMENTS_MAX_CONCURRENT_UPLOADS an upload waits here, its body unread, holding no connection of the pool.
    return this.uploads.run(() => this.store(ticketId, open, context));
  }

  private async store(ticketId: string, open: () => Promise<IncomingFile>, context: WriteContext): Promise<AttachmentResponse> {
    const file = await open();
    const storage = this.storages.forNew();
    // Until recordAdded gives the row the commit's time.
    const started = new Date();
    const filename = cleanFilename(file.filename);
    let writer: ContentWriter | undefined;
    let attachment: AttachmentResponse;
    try {
      attachment = await freeOfRequestDeadline(() =>
        this.database.transaction(
          async (transaction) => {
            const id = await this.attachments.insert(transaction, {
              ticketId,
              filename,
              storage: storage.kind,
              createdAt: started,
              createdBy: context.actor,
            });
            writer = storage.writer(transaction, id);
            const received = await receiveContent(file, writer, this.config.maxFileSize, this.config.uploadIdleTimeoutMs);
            await file.ended;
            await writer.finish();
            const attachment: AttachmentResponse = {
              id,
              ticketId: Number(ticketId),
              filename,
              contentType: recordedContentType(received.head, file.declaredType),
              size: received.size,
              sha256: received.sha256,
              createdAt: started,
              createdBy: context.actor,
            };
            await this.recordAdded(transaction, attachment, context, uploadContent(file, received));
            return attachment;
          },
          { retryDeadlocks: false },
        ),
      );
    } catch (error) {
      // A COMMIT whose answer was lost may have committed: its bytes stay, for the sweeper to complete or remove.
      if (!isCommitOutcomeUnknown(error)) await writer?.abandon();
      throw error;
    }
    // Committed: a failed rename leaves the partial file, which the sweeper completes (OrphanSweeper).
    await writer?.committed().catch((error: unknown) => this.logger.error(`Attachment ${attachment.id}: ${String(error)}`));
    return attachment;
  }

  /**
   * The end of an upload: the ticket's row lock orders the attachment with the ticket's updates and its delete (no
   * attachment commits for a ticket deleted meanwhile) and with other uploads to it, so the count, the transaction's
   * first read, sees every attachment committed before and none can slip past the limit. Sets `createdAt`. `content`
   * identifies the file for the Idempotency-Key: a retry with another file is a 422.
   */
  private async recordAdded(
    transaction: Transaction,
    attachment: AttachmentResponse,
    context: WriteContext,
    content: unknown,
  ): Promise<void> {
    const ticketId = String(attachment.ticketId);
    await assertTicketExists(transaction, ticketId, true);
    await this.assertRoom(transaction, ticketId, 1);
    // Its time is the commit's, under the ticket's lock, so it orders with the ticket's other writes.
    attachment.createdAt = new Date();
    await this.attachments.complete(transaction.later, attachment.id, attachment);
    await this.history.record(transaction.later, {
      ticketId: attachment.ticketId,
      occurredAt: attachment.createdAt,
      actor: context.actor,
      action: HistoryAction.ATTACHED,
      changes: { attachment: { from: null, to: attachment.id } },
    });
    await this.outbox.record(
      transaction.later,
      attachmentEvent('ATTACHMENT_ADDED', attachment.ticketId, attachment, attachment.createdAt),
      routingKeyOf('ATTACHMENT_ADDED'),
    );
    // No ETag: the first answer has none either (a replay answers with the same headers).
    await this.idempotency.finishCreated(transaction, context.idempotency, attachment, null, content);
  }

  /** `own`: the transaction's own new attachment, which its count includes. */
  private async assertRoom(db: Transaction | Database, ticketId: string, own = 0): Promise<void> {
    const count = await this.attachments.countForTicket(db, ticketId);
    if (count - own >= this.config.maxPerTicket) {
      throw new ConflictException(`Ticket ${ticketId} already has ${this.config.maxPerTicket} attachments, the most it may have`);
    }
  }

  async list(ticketId: string, page: KeysetPageRequest, viewer: Viewer = DESK): Promise<KeysetPage<AttachmentResponse>> {
    const attachments = await this.attachments.page(ticketId, page, viewer);
    if (attachments.length === 0) await assertTicketExists(this.database, ticketId);
    return keysetPage(attachments, page);
  }

  async findOne(ticketId: string, attachmentId: string, viewer: Viewer = DESK): Promise<StoredAttachment> {
    const attachment = await this.attachments.findOne(undefined, ticketId, attachmentId, false, viewer);
    if (attachment) return attachment;
    await assertTicketExists(this.database, ticketId);
    throw attachmentNotFound(attachmentId);
  }

  /**
   * The bytes `start`-`end` (inclusive) of an attachment, a chunk at a time, each read bounded by DB_QUERY_TIMEOUT_MS,
   * not by the request's deadline: a download lasts as long as its client takes to receive it. A generator runs in
   * the context of whoever asks for its next piece, so each piece is asked for free of the deadline.
   */
  async *content(attachment: StoredAttachment, start: number, end: number): AsyncGenerator<Buffer> {
    const pieces = this.storages.of(attachment.storage).read(attachment.id, start, end)[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await freeOfRequestDeadline(() => pieces.next());
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await pieces.return?.();
    }
  }

  /** Deletes the attachment with a DETACHED history entry and an ATTACHMENT_DELETED event; 409 while a comment names it. */
  async remove(ticketId: string, attachmentId: string, context: WriteContext = anonymousWrite()): Promise<void> {
    const removed = await this.database.transaction(async (transaction) => {
      await assertTicketExists(transaction, ticketId, true);
      const now = new Date();
      const attachment = await this.attachments.findOne(transaction, ticketId, attachmentId, true);
      if (!attachment) throw attachmentNotFound(attachmentId);
      const comments = await this.attachments.commentsNaming(transaction, attachment.id);
      if (comments.length > 0) {
        throw new ConflictException(`Attachment ${attachment.id} is named by comment ${comments.join(', ')} and cannot be deleted`);
      }
      await this.attachments.delete(transaction.later, [attachment.id]);
      await this.history.record(transaction.later, {
        ticketId: attachment.ticketId,
        occurredAt: now,
        actor: context.actor,
        action: HistoryAction.DETACHED,
        changes: { attachment: { from: attachment.id, to: null } },
      });
      const event = attachmentEvent('ATTACHMENT_DELETED', attachment.ticketId, responseOf(attachment), now);
      await this.outbox.record(transaction.later, event, routingKeyOf('ATTACHMENT_DELETED'));
      return attachment;
    });
    await this.removeBytes(removed.storage, [removed.id]);
  }

  /** After a committed delete: a failure to remove the bytes is logged, not answered; the sweeper removes them later. */
  private async removeBytes(kind: StoredAttachment['storage'], ids: number[]): Promise<void> {
    try {
      await this.storages.of(kind).removed(ids);
    } catch (error) {
      this.logger.warn(`The bytes of deleted attachments ${ids.join(', ')} were not removed: ${String(error)}`);
    }
  }

  /** A ticket's delete: its attachments' rows (and chunks) go in its transaction, their files after its commit. */
  async ticketDeleted(transaction: Transaction, ticketId: string): Promise<void> {
    // By id, those committed (a consistent read): an upload still running to the ticket holds its row uncommitted, and
    // a delete by ticket would wait for that upload; the upload instead finds the ticket gone at its end and rolls back.
    const attachments = await this.attachments.ofTicket(transaction, ticketId);
    await this.attachments.delete(
      transaction.later,
      attachments.map((attachment) => attachment.id),
    );
    transaction.afterCommit(async () => {
      for (const kind of new Set(attachments.map((attachment) => attachment.storage))) {
        const ids = attachments.filter((attachment) => attachment.storage === kind).map((attachment) => attachment.id);
        await this.removeBytes(kind, ids);
      }
    });
  }
}

export function attachmentNotFound(id: string | number): NotFoundException {
  return new NotFoundException(`Attachment not found with id: ${id}`);
}
