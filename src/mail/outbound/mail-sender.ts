import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import type { AppConfig } from '../../config/app-config.js';
import type { SmtpConfig } from '../../config/mail-config.js';
import { PeriodicWorker } from '../../database/periodic-worker.js';
import { MailMetrics } from '../mail.metrics.js';
import { type AttemptEnd, type ClaimedNotification, MailNotificationsRepository } from './mail-notifications.repository.js';
import { workerOwner } from '../../database/worker-owner.js';

const FIRST_RETRY_MS = 1_000;

/**
 * Whether a refusal is about the recipient, for good: RFC 3463's 5.1.x (a bad address: no such user, domain) and
 * 5.2.1/5.2.2 (the mailbox is disabled or full), or without an enhanced code a 550, 551 or 553 to RCPT TO. Any other
 * 5xx (relaying denied, 5.7.x policy, a refused login or sender) is the desk's own setup, and is tried again until
 * MAIL_GIVE_UP_AFTER, so that fixing it sends what waited.
 */
function refusesTheRecipient(code: number, response: string, command: string): boolean {
  const enhanced = /\b5\.(\d{1,3})\.(\d{1,3})\b/.exec(response);
  if (enhanced) return enhanced[1] === '1' || (enhanced[1] === '2' && (enhanced[2] === '1' || enhanced[2] === '2'));
  return command === 'RCPT TO' && [550, 551, 553].includes(code);
}

/** The SMTP reply code of a nodemailer failure, when the server gave one. */
function replyCode(error: unknown): number | undefined {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' ? code : undefined;
}

/**
 * How a failed attempt ends: a refusal of the recipient refuses the notification for good (refusesTheRecipient);
 * anything else (no connection, a timeout, a 4xx, a 5xx about the desk's own setup) is tried again, the wait doubling from a second up to MAIL_RETRY_MAX_DELAY,
 * until MAIL_GIVE_UP_AFTER has passed since the notification was recorded.
 */
export function afterFailure(error: unknown, attempts: number, ageMs: number, smtp: SmtpConfig): AttemptEnd {
  const code = replyCode(error);
  const answer = (error as { response?: string }).response ?? (error as Error).message ?? String(error);
  const command = (error as { command?: string }).command ?? '';
  if (code !== undefined && code >= 500 && refusesTheRecipient(code, answer, command)) return { status: 'failed', answer };
  if (ageMs >= smtp.giveUpAfterMs) return { status: 'failed', answer: `gave up after MAIL_GIVE_UP_AFTER: ${answer}` };
  return { status: 'pending', answer, retryInMs: Math.min(FIRST_RETRY_MS * 2 ** Math.min(attempts, 30), smtp.retryMaxDelayMs) };
}

/**
 * Sends the notifications that are due through MAIL_SMTP_URL with nodemailer, at least once: each is claimed
 * (owner, epoch, expiry) before it is sent and its outcome recorded only while the claim holds. A send that
 * succeeded but whose outcome was not recorded is sent again by the next claim, as the same message (its
 * Message-ID was fixed when it was rendered), which mail clients show once.
 */
@Injectable()
export class MailSender implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MailSender');
  private readonly smtp?: SmtpConfig;
  private readonly transport?: Transporter;
  private readonly worker: PeriodicWorker;
  private readonly owner = workerOwner();

  constructor(
    private readonly notifications: MailNotificationsRepository,
    private readonly metrics: MailMetrics,
    config: ConfigService<AppConfig, true>,
  ) {
    this.smtp = config.get('mail', { infer: true }).smtp;
    if (this.smtp) {
      const timeout = this.smtp.timeoutMs;
      // A pool keeps connections open between sends (a new connection per message costs about 100 ms).
      const options: SMTPPool.Options = {
        url: this.smtp.url,
        pool: true,
        maxConnections: this.smtp.concurrency,
        // A message whose connection closed is not sent again by the pool within the same claim (it may have gone
        // out); the next claim sends it, as the same message.
        maxRequeues: 0,
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
      };
      this.transport = nodemailer.createTransport(options);
    }
    this.worker = new PeriodicWorker({ name: MailSender.name, intervalMs: this.smtp?.pollIntervalMs ?? 1_000, pass: () => this.pass() });
  }

  /** Whether notifications are mailed at all (MAIL_SMTP_URL). */
  get enabled(): boolean {
    return this.transport !== undefined;
  }

  onApplicationBootstrap(): void {
    if (this.enabled) this.worker.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker.stop();
    this.transport?.close();
  }

  /** Looks for due notifications now (the notifier just wrote some). */
  wake(): void {
    if (this.enabled) this.worker.wake();
  }

  /** Whether the SMTP server answers (for the health component). */
  async verify(): Promise<void> {
    await this.transport?.verify();
  }

  /**
   * Claims as many due notifications as it sends at once (MAIL_SEND_CONCURRENCY) and sends them side by side, so that
   * a claim never waits behind other sends. Once one finds the server unreachable, the next pass waits for its poll.
   */
  private async pass(): Promise<boolean> {
    const batch = this.smtp!.concurrency;
    const claimed = await this.notifications.claim(await this.notifications.due(batch), this.owner, this.smtp!.leaseTtlMs);
    // Every send ends before the pass does, also when recording one of them fails.
    const settled = await Promise.allSettled(claimed.map((notification) => this.send(notification)));
    const rejected = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (rejected) throw rejected.reason;
    const failures = settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value);
    const unreachable = failures.some((failure) => failure !== undefined && replyCode(failure) === undefined);
    return claimed.length === batch && !unreachable;
  }

  /** Sends one and records how it went; answers the failure, if any. */
  private async send(notification: ClaimedNotification): Promise<unknown> {
    let end: AttemptEnd;
    let failure: unknown;
    try {
      const info = (await this.transport!.sendMail(JSON.parse(notification.message))) as { response?: string };
      end = { status: 'sent', answer: info.response ?? 'accepted' };
    } catch (error) {
      failure = error;
      end = afterFailure(error, notification.attempts, Date.now() - new Date(notification.createdAt).getTime(), this.smtp!);
      if (end.status === 'failed') this.logger.warn(`Notification ${notification.id} failed: ${end.answer}`);
    }
    this.metrics.sent(end.status === 'pending' ? 'retrying' : end.status);
    await this.notifications.recordAttempt(notification.id, this.owner, notification.epoch, end);
    return failure;
  }
}
