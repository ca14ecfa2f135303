import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { AppConfig } from '../../../config/app-config.js';
import { MailboxReader } from '../../../mail/inbound/mailbox-reader.js';
import { MailSender } from '../../../mail/outbound/mail-sender.js';
import { probe } from '../health-probe.js';

/** How long a mail server's state is shown before it is checked again: UP for longer, DOWN so that recovery shows soon. */
const CHECK_EVERY_MS = { up: 30_000, down: 5_000 };

/**
 * The `mail` component: whether the IMAP mailbox (MAIL_IMAP_URL) and the SMTP server (MAIL_SMTP_URL) answer, each as
 * UP or the error it gave. Informational: mail waits in the mailbox and in the notifications while either is away,
 * so neither ever makes the service or its readiness DOWN.
 */
@Injectable()
export class MailHealthIndicator {
  private readonly timeoutMs: number;
  private readonly imap: boolean;
  private readonly smtp: boolean;
  private readonly checked = new Map<'imap' | 'smtp', { until: number; state: Promise<string> }>();

  constructor(
    private readonly health: HealthIndicatorService,
    private readonly mailbox: MailboxReader,
    private readonly sender: MailSender,
    config: ConfigService<AppConfig, true>,
  ) {
    this.timeoutMs = config.get('management.healthTimeoutMs', { infer: true });
    const mail = config.get('mail', { infer: true });
    this.imap = mail.imap !== undefined;
    this.smtp = mail.smtp !== undefined;
  }

  /**
   * A server's state, checked again only once the last check's is CHECK_EVERY_MS old: each check logs in (IMAP) or greets (SMTP), which probes
   * every few seconds on every replica would turn into a load a mail provider throttles or locks the account for.
   */
  private outcome(server: 'imap' | 'smtp', check: () => Promise<void>): Promise<string> {
    const cached = this.checked.get(server);
    if (cached && Date.now() < cached.until) return cached.state;
    const entry = { until: Number.POSITIVE_INFINITY, state: Promise.resolve('') };
    entry.state = check().then(
      () => {
        entry.until = Date.now() + CHECK_EVERY_MS.up;
        return 'UP';
      },
      (error: unknown) => {
        entry.until = Date.now() + CHECK_EVERY_MS.down;
        return `DOWN: ${(error as Error).message}`;
      },
    );
    this.checked.set(server, entry);
    return entry.state;
  }

  /** Only a service that reads a mailbox or sends mail has the component. */
  get configured(): boolean {
    return this.imap || this.smtp;
  }

  check<Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    return probe(this.health, key, this.timeoutMs, async () => {
      const [imap, smtp] = await Promise.all([
        this.imap ? this.outcome('imap', () => this.mailbox.verify()) : undefined,
        this.smtp ? this.outcome('smtp', () => this.sender.verify()) : undefined,
      ]);
      const details = { ...(imap && { imap }), ...(smtp && { smtp }) };
      return { up: Object.values(details).every((state) => state === 'UP'), details };
    });
  }
}
