import { Readable } from 'node:stream';
import { HttpException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../../config/app-config.js';
import type { MailConfig } from '../../config/mail-config.js';
import type { Queryable } from '../../database/statement-batch.js';
import { Database } from '../../database/database.js';
import { freeOfRequestDeadline } from '../../database/request-deadline.js';
import { TicketsService } from '../../tickets/tickets.service.js';
import { finalMergeTarget } from '../../tickets/merges/merges.repository.js';
import { CommentsService } from '../../comments/comments.service.js';
import { AttachmentsService } from '../../attachments/attachments.service.js';
import { ParticipantsRepository } from '../../people/participants.repository.js';
import { CommentVisibility } from '../../comments/comment-visibility.enum.js';
import { COMMENT_BODY_MAX_LENGTH } from '../../comments/dto/comment-request.dto.js';
import { CC_EMAILS_MAX } from '../../people/cc-emails.js';
import type { TicketResponse } from '../../tickets/dto/ticket-response.dto.js';
import { TicketStatus } from '../../tickets/ticket-status.enum.js';
import type { TicketPriority } from '../../tickets/ticket-priority.enum.js';
import type { WriteContext } from '../../common/context/write-context.js';
import { type DeskAddress, deskAddress, isDeskAddress, ticketOfReplyAddress } from '../reply-address.js';
import { MailMetrics } from '../mail.metrics.js';
import { automaticMailReason, failsDmarc } from './automatic-mail.js';
import { type InboundMail, type MailPart, messageHash, readInboundMail } from './inbound-mail.js';
import { AlreadyRecorded, MailMessagesRepository, type MessageRecord } from './mail-messages.repository.js';
import { replyText } from './reply-text.js';
import { subjectTicketId, ticketTitle } from './subject.js';
import { threadOf } from './threading.js';

/** What became of a message (`POST /api/v2/inbound-email` answers it). */
export interface InboundResult {
  outcome: 'created' | 'commented' | 'duplicate' | 'ignored';
  ticketId: number | null;
  reason: string | null;
}

/** What a mailbox reader adds to the transaction that records a message: its check that the mailbox is still its own. */
export type MailboxFence = (transaction: Queryable) => Promise<void>;

const DESCRIPTION_MAX = 2000;
/** The files left out that the internal comment names one by one; it counts the rest. */
const LEFT_OUT_NAMED = 50;
const CUT_NOTE = '\n\n[…] The whole message is attached as message.eml.';
/** A reply whose new text is empty still becomes a comment, so that the conversation shows that it came. */
const EMPTY_REPLY = '(The reply has no new text; the whole message is attached as message.eml.)';

/** Ticket statuses a reply reopens: the desk is waiting for the requester, or thought it was done. */
const REOPENED_BY_REPLY = new Set<string>([TicketStatus.WAITING_ON_CUSTOMER, TicketStatus.RESOLVED]);

function cut(text: string, max: number, note: string): string {
  return text.length <= max ? text : text.slice(0, max - note.length) + note;
}

function ignored(reason: string, ticketId: number | null = null): InboundResult {
  return { outcome: 'ignored', ticketId, reason };
}

/**
 * The rules every received message goes through, from a mailbox (MailboxReader) or over HTTP (InboundMailController):
 * a message is handled once (its Message-ID is recorded in the transaction of what it made), automatic mail and the
 * desk's own never make anything, and the rest becomes a comment on the ticket it answers or a new ticket, through
 * the same services as a POST (docs/email.md).
 */
@Injectable()
export class InboundMailService {
  private readonly logger = new Logger('InboundMail');
  private readonly config: MailConfig;
  private readonly desk: DeskAddress[];

  constructor(
    private readonly database: Database,
    private readonly tickets: TicketsService,
    private readonly comments: CommentsService,
    private readonly attachments: AttachmentsService,
    private readonly participants: ParticipantsRepository,
    private readonly messages: MailMessagesRepository,
    private readonly metrics: MailMetrics,
    config: ConfigService<AppConfig, true>,
  ) {
    this.config = config.get('mail', { infer: true });
    this.desk = this.config.deskAddresses.map(deskAddress);
  }

  /** The largest message taken (MAIL_MAX_MESSAGE_SIZE). */
  get maxMessageSize(): number {
    return this.config.maxMessageSize;
  }

  /**
   * Handles one raw message. Throws only when the message could not be handled now (the database is unreachable,
   * say): then nothing of it was recorded, and it may be handed in again.
   */
  async receive(raw: Buffer, fence?: MailboxFence): Promise<InboundResult> {
    // A message is several transactions (its ticket or comment, each of its files): like an upload, it runs free of
    // the request's deadline, each statement bounded by DB_QUERY_TIMEOUT_MS, so that a large message's last file is
    // not refused because its first took the deadline's time.
    const result = await freeOfRequestDeadline(() => this.handle(raw, fence));
    this.metrics.received(result.outcome);
    const line = `Message ${result.outcome}${result.ticketId === null ? '' : ` (ticket ${result.ticketId})`}`;
    if (result.outcome === 'ignored') this.logger.log(`${line}: ${result.reason}`);
    else this.logger.debug?.(line);
    return result;
  }

  private async handle(raw: Buffer, fence?: MailboxFence): Promise<InboundResult> {
    let mail: InboundMail;
    try {
      mail = await readInboundMail(raw);
    } catch (error) {
      return this.recordIgnored(messageHash(raw), null, `unreadable message: ${(error as Error).message}`, fence);
    }
    const before = await this.messages.find(mail.messageId);
    if (before && before.outcome !== 'ignored') return { outcome: 'duplicate', ticketId: before.ticketId, reason: null };

    const reason = await this.whyIgnored(mail);
    if (reason && before) return { outcome: 'duplicate', ticketId: null, reason: before.reason };
    if (reason) return this.recordIgnored(mail.messageId, mail.from ?? null, reason, fence);
    const sender = mail.from!;

    const thread = threadOf({
      referenced: await this.messages.ticketReferenced(mail.references),
      replyAddress: this.replyAddressTicket(mail),
      subjectTag: await this.subjectTag(mail, sender),
    });
    // A reply to a merged ticket's thread goes on where its conversation went (docs/api.md#merge).
    const answered = thread && (await this.existing(await finalMergeTarget(this.database, thread.ticketId)));
    if (answered && answered.status !== TicketStatus.CLOSED && !failsDmarc(mail.headers, this.config.trustedAuthservId)) {
      return this.comment(mail, sender, answered, fence);
    }
    let preface = '';
    if (answered?.status === TicketStatus.CLOSED) preface = `This message answers ticket #${answered.id}, which is closed.\n\n`;
    else if (answered)
      preface = `This message claims to answer ticket #${answered.id}, but fails DMARC, so it opened a ticket of its own.\n\n`;
    return this.create(mail, sender, preface, fence);
  }

  /** The ticket, or undefined when there is none (a deleted one); any other failure is thrown. */
  private existing(ticketId: number): Promise<TicketResponse | undefined> {
    return this.tickets.findOne(String(ticketId)).catch((error: unknown) => {
      if (error instanceof NotFoundException) return undefined;
      throw error;
    });
  }

  /** Why the message makes nothing, or undefined when it is to be handled. */
  private async whyIgnored(mail: InboundMail): Promise<string | undefined> {
    const automatic = automaticMailReason({ headers: mail.headers, from: mail.from });
    if (automatic) return automatic;
    if (!mail.from) return 'no sender address a ticket could name';
    if (isDeskAddress(mail.from, this.desk)) return "from the desk's own address";
    if ((await this.messages.madeInLastHour(mail.from)) >= this.config.senderLimitPerHour) {
      return `the sender has reached MAIL_SENDER_LIMIT_PER_HOUR (${this.config.senderLimitPerHour})`;
    }
    return undefined;
  }

  private replyAddressTicket(mail: InboundMail): number | undefined {
    if (!this.config.replySecret) return undefined;
    const { to, cc, deliveredTo } = mail.recipients;
    return ticketOfReplyAddress([...to, ...cc, ...deliveredTo], this.desk[0], this.config.replySecret);
  }

  private async subjectTag(mail: InboundMail, sender: string): Promise<{ ticketId: number; senderBelongs: boolean } | undefined> {
    const ticketId = subjectTicketId(mail.subject);
    if (ticketId === undefined) return undefined;
    const ticket = await this.existing(ticketId);
    if (!ticket) return undefined;
    const people = (await this.participants.of([ticketId])).get(ticketId) ?? [];
    return { ticketId, senderBelongs: ticket.requesterEmail.toLowerCase() === sender || people.includes(sender) };
  }

  /** The desk's write for this message: by its sender, recording it in the write's transaction. */
  private writeFor(
    mail: InboundMail,
    sender: string,
    record: Omit<MessageRecord, 'ticketId' | 'commentId'>,
    fence?: MailboxFence,
  ): WriteContext {
    return {
      actor: null,
      causedBy: sender,
      recordWith: async (transaction, made) => {
        await fence?.(transaction);
        await this.messages.record(transaction, { ...record, ticketId: made.ticketId, commentId: made.commentId ?? null });
        if (record.outcome === 'created') await this.messages.chainTo(transaction, [[made.ticketId, mail.messageId]]);
      },
    };
  }

  private async create(mail: InboundMail, sender: string, preface: string, fence?: MailboxFence): Promise<InboundResult> {
    const ccEmails = [...mail.recipients.to, ...mail.recipients.cc]
      .filter((address) => address !== sender && !isDeskAddress(address, this.desk))
      .slice(0, CC_EMAILS_MAX);
    const body = preface + (preface ? replyText(mail.text) : mail.text.trim());
    const request = {
      title: ticketTitle(mail.subject),
      description: cut(body.trim() === '' ? '(The message has no text.)' : body, DESCRIPTION_MAX, CUT_NOTE),
      status: TicketStatus.OPEN,
      priority: this.config.defaultPriority as TicketPriority,
      requesterEmail: sender,
      assignedTo: null,
    };
    const record = { messageId: mail.messageId, sender, outcome: 'created' as const, reason: null };
    let ticket: TicketResponse;
    try {
      ticket = await this.tickets.create(request, this.writeFor(mail, sender, record, fence), { ccEmails, tags: [] });
    } catch (error) {
      return this.afterFailedRecord(error, mail.messageId);
    }
    // The ticket and the record of its message have committed: from here on a failure is noted, never thrown (the
    // message would come back as a duplicate, and what failed would be lost without a trace).
    const { leftOut } = await this.attach(ticket.id, mail, true);
    await this.noteLeftOut(ticket.id, leftOut).catch((error: unknown) =>
      this.logger.error(
        `Ticket ${ticket.id}: the note of the mail's files left out failed: ${(error as Error).message}; left out: ${leftOut.join('; ')}`,
      ),
    );
    return { outcome: 'created', ticketId: ticket.id, reason: null };
  }

  private async comment(mail: InboundMail, sender: string, ticket: TicketResponse, fence?: MailboxFence): Promise<InboundResult> {
    const { ids, leftOut } = await this.attach(ticket.id, mail);
    const text = replyText(mail.text);
    const record = { messageId: mail.messageId, sender, outcome: 'commented' as const, reason: null };
    try {
      await this.comments.add(
        String(ticket.id),
        {
          body: cut(text === '' ? EMPTY_REPLY : text, COMMENT_BODY_MAX_LENGTH, CUT_NOTE),
          author: sender,
          visibility: CommentVisibility.PUBLIC,
          attachmentIds: ids,
        },
        this.writeFor(mail, sender, record, fence),
      );
    } catch (error) {
      // Someone else recorded it meanwhile (another replica, a retried POST): the files this one added go again.
      await Promise.all(ids.map((id) => this.attachments.remove(String(ticket.id), String(id)).catch(() => undefined)));
      return this.afterFailedRecord(error, mail.messageId);
    }
    // The comment has committed: from here on a failure is logged, never thrown (see create).
    await this.noteLeftOut(ticket.id, leftOut).catch((error: unknown) =>
      this.logger.error(
        `Ticket ${ticket.id}: the note of the mail's files left out failed: ${(error as Error).message}; left out: ${leftOut.join('; ')}`,
      ),
    );
    if (REOPENED_BY_REPLY.has(ticket.status)) {
      await this.tickets
        .patch(String(ticket.id), { status: TicketStatus.IN_PROGRESS }, undefined, { actor: null, causedBy: sender })
        .catch((error: unknown) =>
          this.logger.warn(`Ticket ${ticket.id} stays ${ticket.status} after a reply: ${(error as Error).message}`),
        );
    }
    return { outcome: 'commented', ticketId: ticket.id, reason: null };
  }

  private async afterFailedRecord(error: unknown, messageId: string): Promise<InboundResult> {
    if (!(error instanceof AlreadyRecorded)) throw error;
    const before = await this.messages.find(messageId);
    return { outcome: 'duplicate', ticketId: before?.ticketId ?? null, reason: before?.reason ?? null };
  }

  private async recordIgnored(messageId: string, sender: string | null, reason: string, fence?: MailboxFence): Promise<InboundResult> {
    const record = { messageId, sender, outcome: 'ignored' as const, reason, ticketId: null, commentId: null };
    try {
      await this.database.transaction(async (transaction) => {
        await fence?.(transaction);
        await this.messages.record(transaction, record);
      });
    } catch (error) {
      return this.afterFailedRecord(error, messageId);
    }
    return ignored(reason);
  }

  /**
   * The message itself (`message.eml`) and its parts, each an attachment of the ticket under the attachment limits; a
   * part they refuse is left out and named. `afterCommit`: what the message made has committed, so a failure to store
   * a file (the database gone, say) is left out and named too rather than thrown.
   */
  private async attach(ticketId: number, mail: InboundMail, afterCommit = false): Promise<{ ids: number[]; leftOut: string[] }> {
    const files: MailPart[] = [{ filename: 'message.eml', contentType: 'message/rfc822', content: mail.raw }, ...mail.parts];
    const ids: number[] = [];
    const leftOut: string[] = [];
    for (const file of files) {
      try {
        const stored = await this.attachments.add(String(ticketId), async () => ({
          filename: file.filename,
          declaredType: file.contentType,
          content: Readable.from([file.content]),
          ended: Promise.resolve(),
        }));
        ids.push(stored.id);
      } catch (error) {
        if (!(error instanceof HttpException) && !afterCommit) throw error;
        leftOut.push(`${file.filename} (${file.content.length} bytes): ${(error as Error).message}`);
      }
    }
    return { ids, leftOut };
  }

  private async noteLeftOut(ticketId: number, leftOut: string[]): Promise<void> {
    if (leftOut.length === 0) return;
    const named = leftOut.slice(0, LEFT_OUT_NAMED).map((line) => `- ${line}`);
    if (leftOut.length > LEFT_OUT_NAMED) named.push(`- and ${leftOut.length - LEFT_OUT_NAMED} more`);
    const body = cut(`${leftOut.length} of the mail's files were left out:\n${named.join('\n')}`, COMMENT_BODY_MAX_LENGTH, '\n…');
    await this.comments.add(String(ticketId), { body, author: null, visibility: CommentVisibility.INTERNAL }, { actor: null });
  }
}
