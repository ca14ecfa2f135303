import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { AppConfig } from '../../../config/app-config.js';
import { MailboxReader } from '../../../mail/inbound/mailbox-reader.js';
import { MailSender } from '../../../mail/outbound/mail-sender.js';
import { probe } from '../health-probe.js';

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

  /** Only a service that reads a mailbox or sends mail has the component. */
  get configured(): boolean {
    return this.imap || this.smtp;
  }

  check<Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    return probe(this.health, key, this.timeoutMs, async () => {
      const outcome = (check: () => Promise<void>) =>
        check().then(
          () => 'UP',
          (error: unknown) => `DOWN: ${(error as Error).message}`,
        );
      const [imap, smtp] = await Promise.all([
        this.imap ? outcome(() => this.mailbox.verify()) : undefined,
        this.smtp ? outcome(() => this.sender.verify()) : undefined,
      ]);
      const details = { ...(imap && { imap }), ...(smtp && { smtp }) };
      return { up: Object.values(details).every((state) => state === 'UP'), details };
    });
  }
}
