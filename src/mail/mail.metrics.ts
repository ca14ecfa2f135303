import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '../observability/metrics/metrics.registry.js';
import { Counter, Gauge } from '../observability/metrics/prom-client.js';
import { MailNotificationsRepository } from './outbound/mail-notifications.repository.js';

export type InboundOutcome = 'created' | 'commented' | 'duplicate' | 'ignored' | 'failed';
export type OutboundOutcome = 'sent' | 'retrying' | 'failed';

/** Mail as Prometheus sees it: this replica's counts (sum them), and the backlogs read at scrape time. */
@Injectable()
export class MailMetrics {
  private readonly inbound: Counter<'outcome'>;
  private readonly outbound: Counter<'outcome'>;

  constructor(metrics: MetricsRegistry, notifications: MailNotificationsRepository) {
    const registers = [metrics.registry];
    new Gauge({
      name: 'mail_notifications_pending',
      help: 'Notifications waiting for their first or next attempt; NaN when the database cannot say (the same on every replica: max())',
      registers,
      async collect() {
        this.set(await notifications.pendingCount().catch(() => NaN));
      },
    });
    new Gauge({
      name: 'mail_notifier_changes_behind',
      help: 'Numbered changes of the change log the mail notifier has not read yet; NaN when the database cannot say or mail is off (the same on every replica: max())',
      registers,
      async collect() {
        this.set(await notifications.changesBehind().catch(() => NaN));
      },
    });
    this.inbound = new Counter({
      name: 'mail_inbound_messages_total',
      help: 'Messages received (IMAP and POST /api/v2/inbound-email) by outcome: created, commented, duplicate (handled before), ignored (automatic, a bounce, the desk itself, over the sender limit, unreadable), failed (could not be handled; IMAP moves it to the failed folder)',
      labelNames: ['outcome'],
      registers,
    });
    this.outbound = new Counter({
      name: 'mail_outbound_messages_total',
      help: 'Notification send attempts by outcome: sent, retrying (the SMTP server was unreachable or answered 4xx), failed (5xx for the address, or no success for MAIL_GIVE_UP_AFTER)',
      labelNames: ['outcome'],
      registers,
    });
  }

  received(outcome: InboundOutcome): void {
    this.inbound.inc({ outcome });
  }

  sent(outcome: OutboundOutcome): void {
    this.outbound.inc({ outcome });
  }
}
