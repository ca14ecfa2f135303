import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Injectable, Logger, NotFoundException, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../../config/app-config.js';
import type { MailConfig } from '../../config/mail-config.js';
import { Database } from '../../database/database.js';
import { PeriodicWorker } from '../../database/periodic-worker.js';
import { ChangeNotifier } from '../../changes/change-notifier.js';
import { TicketsService } from '../../tickets/tickets.service.js';
import type { TicketResponse } from '../../tickets/dto/ticket-response.dto.js';
import { ParticipantsRepository } from '../../people/participants.repository.js';
import { MailMessagesRepository } from '../inbound/mail-messages.repository.js';
import { taggedSubject } from '../inbound/subject.js';
import { type DeskAddress, deskAddress, isDeskAddress, replyAddress } from '../reply-address.js';
import { MailTemplates } from './mail-templates.js';
import { type NewNotification, type NotifiableChange, MailNotificationsRepository } from './mail-notifications.repository.js';
import { type LoggedChange, type NotificationKind, notificationKind, recipientsOf } from './notification-rules.js';
import { MailSender } from './mail-sender.js';

/** Changes read per pass. */
const BATCH = 200;

/** A notification to render once its ticket's thread is known. */
interface Planned {
  change: NotifiableChange;
  kind: NotificationKind;
  ticket: TicketResponse;
  comment?: { body: string; author: string | null };
  merge?: { targetId: number };
  recipients: string[];
}

/**
 * Follows the change log with its own cursor (`mail_notifier`) and turns each change that is mailed (notification-rules.ts)
 * into a notification per recipient, rendered once with a stable Message-ID (`<eventId.recipient-hash@domain>`), so
 * that a retried send is the same message. The notifications and the cursor's move commit together; the cursor moves
 * only from where this pass found it, so two replicas never both write a change's notifications (and the unique
 * (event, recipient) key would take the second's away if they did). Woken when the sequencer numbers changes, while mail is on.
 */
@Injectable()
export class MailNotifier implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MailNotifier');
  private readonly config: MailConfig;
  private readonly desk: DeskAddress[];
  private readonly domain: string;
  private readonly templates: MailTemplates;
  private readonly worker: PeriodicWorker;
  /** Whether this replica's first pass has passed over what a notifier switched off for a day left behind. */
  private staleSkipped = false;

  constructor(
    private readonly database: Database,
    private readonly notifications: MailNotificationsRepository,
    private readonly threads: MailMessagesRepository,
    private readonly tickets: TicketsService,
    private readonly participants: ParticipantsRepository,
    private readonly sender: MailSender,
    changes: ChangeNotifier,
    config: ConfigService<AppConfig, true>,
  ) {
    this.config = config.get('mail', { infer: true });
    this.desk = this.config.deskAddresses.map(deskAddress);
    this.domain = deskAddress(this.config.from.address).domain;
    this.templates = new MailTemplates(this.config.templatesDir);
    this.worker = new PeriodicWorker({
      name: MailNotifier.name,
      intervalMs: this.config.smtp?.pollIntervalMs ?? 1_000,
      pass: () => this.pass(),
    });
    // Without an SMTP server nothing is recorded: notifications would pile up unsent, and go out late once one is set.
    const mailing = () => this.config.smtp !== undefined;
    changes.onAdvance(() => {
      if (mailing()) this.worker.wake();
    }, mailing);
  }

  onApplicationBootstrap(): void {
    if (this.config.smtp) this.worker.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker.stop();
  }

  private async pass(): Promise<boolean> {
    if (!this.staleSkipped) {
      const skipped = await this.notifications.skipStale();
      if (skipped > 0) this.logger.warn(`Mail was off for more than a day: the ${skipped} changes numbered meanwhile are not mailed`);
      this.staleSkipped = true;
    }
    const from = await this.notifications.cursor();
    const { changes, through } = await this.notifications.changesAfter(from, BATCH);
    if (through === from) {
      // A quiet desk's notifier is still running: retention and a restart must not take it for one switched off.
      await this.notifications.stillRunning();
      return false;
    }
    const planned = await this.plan(changes);
    let written = 0;
    await this.database.transaction(async (transaction) => {
      const rendered: NewNotification[] = [];
      const ticketIds = [...new Set(planned.map((plan) => plan.ticket.id))];
      // A ticket opened by mail is chained to that mail already; any other gets a root no one can guess, since an
      // answer that names it is taken for a reply to the ticket.
      await this.threads.chainTo(
        transaction,
        ticketIds.map((id) => [id, `ticket-${id}.${randomUUID()}@${this.domain}`]),
      );
      const roots = await this.threads.rootsOf(transaction, ticketIds);
      for (const plan of planned) rendered.push(...this.render(plan, roots.get(plan.ticket.id)!));
      await this.notifications.insert(transaction, rendered);
      if (!(await this.notifications.moveCursor(transaction, from, through))) throw new Error('Another replica moved the mail cursor');
      written = rendered.length;
    });
    if (written > 0) this.sender.wake();
    return changes.length === BATCH;
  }

  /**
   * What each change is mailed as and to whom. A comment's event does not carry its ticket: its title and people are
   * read now (a ticket deleted since gets no mail), the tickets of the batch in one round (BatchedLookup), their
   * participants in one statement.
   */
  private async plan(changes: NotifiableChange[]): Promise<Planned[]> {
    const kinds = changes.flatMap((change) => {
      const event = JSON.parse(change.payload) as LoggedChange['event'] & {
        ticket?: TicketResponse;
        comment?: { body: string; author: string | null };
      };
      const logged: LoggedChange = { eventType: change.eventType, event, context: change.context };
      const kind = notificationKind(logged);
      return kind ? [{ change, event, logged, kind }] : [];
    });
    const tickets = await Promise.all(kinds.map(({ change, event }) => event.ticket ?? this.existing(change.ticketId)));
    const participants = await this.participants.of([...new Set(tickets.flatMap((ticket) => (ticket ? [ticket.id] : [])))]);
    return kinds.flatMap(({ change, event, logged, kind }, i) => {
      const ticket = tickets[i];
      if (!ticket) return [];
      const people = { requester: ticket.requesterEmail.trim().toLowerCase(), participants: participants.get(ticket.id) ?? [] };
      const recipients = recipientsOf(kind, logged, people, (address) => isDeskAddress(address, this.desk));
      return recipients.length === 0 ? [] : [{ change, kind, ticket, comment: event.comment, merge: event.merge, recipients }];
    });
  }

  private existing(ticketId: number): Promise<TicketResponse | undefined> {
    return this.tickets.findOne(String(ticketId)).catch((error: unknown) => {
      if (error instanceof NotFoundException) return undefined;
      throw error;
    });
  }

  /**
   * The part of a Message-ID that names its recipient: an HMAC of the event and the recipient keyed with
   * MAIL_REPLY_SECRET, so that knowing an event's id (the change feed and webhooks show it), or another mail's id, is
   * not enough to forge a reply's references; random without a secret (the
   * notification is rendered once, so its id stays the same on every retry).
   */
  private recipientHash(eventId: string, recipient: string): string {
    const secret = this.config.replySecret;
    if (!secret) return randomBytes(8).toString('hex');
    return createHmac('sha256', secret).update(`${eventId}:${recipient}`).digest('hex').slice(0, 16);
  }

  private render(plan: Planned, root: string): NewNotification[] {
    const { ticket, change } = plan;
    const bodies = this.templates.render(plan.kind, {
      'ticket.id': String(ticket.id),
      'ticket.title': ticket.title,
      'ticket.status': ticket.status,
      'ticket.description': ticket.description,
      'comment.body': plan.comment?.body ?? '',
      'comment.author': plan.comment?.author || 'IT Support',
      'merge.target': plan.merge ? String(plan.merge.targetId) : '',
    });
    const replyTo = this.config.replySecret ? replyAddress(this.desk[0], this.config.replySecret, ticket.id) : this.config.from.address;
    return plan.recipients.map((recipient) => {
      const messageId = `${change.eventId}.${this.recipientHash(change.eventId, recipient)}@${this.domain}`;
      const message = {
        from: { name: this.config.from.name, address: this.config.from.address },
        to: recipient,
        replyTo,
        subject: taggedSubject(ticket.id, ticket.title),
        messageId: `<${messageId}>`,
        inReplyTo: `<${root}>`,
        references: [`<${root}>`],
        date: new Date().toUTCString(),
        headers: { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' },
        text: bodies.text,
        html: bodies.html,
      };
      return {
        eventId: change.eventId,
        eventType: change.eventType,
        ticketId: ticket.id,
        recipient,
        messageId,
        message: JSON.stringify(message),
      };
    });
  }
}
