import { ConfigError, type EnvReader } from './env-reader.js';
import { isEmail } from 'class-validator';
import { duration } from './webhooks-config.js';

/** A ticket's priorities (src/tickets/ticket-priority.enum.ts), which a new ticket from mail takes one of. */
const PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;

/** An address as the desk's own are kept: trimmed, lower case; undefined when it is none. */
function deskAddressOf(value: string | undefined): string | undefined {
  const trimmed = value?.trim() ?? '';
  return trimmed !== '' && trimmed.length <= 255 && isEmail(trimmed) ? trimmed.toLowerCase() : undefined;
}

export interface ImapConfig {
  /** `imaps://user:password@host:993/INBOX` or `imap://` for a local server without TLS. */
  url: URL;
  /** An OAuth 2 access token sent with XOAUTH2 instead of the URL's password. */
  accessToken?: string;
  /** The mailbox read (the URL's path; INBOX when it has none). */
  mailbox: string;
  processedFolder: string;
  failedFolder: string;
  pollIntervalMs: number;
  /** How long a replica's claim of the mailbox lasts unless renewed; another replica reads it after. */
  leaseTtlMs: number;
}

export interface SmtpConfig {
  /** `smtp://host:25`, `smtps://user:password@host:465`. */
  url: string;
  /** One SMTP conversation, from connecting to the server's answer to the message. */
  timeoutMs: number;
  /** The longest wait between two tries of a notification the server could not take yet. */
  retryMaxDelayMs: number;
  /** A notification still not accepted after this long is failed. */
  giveUpAfterMs: number;
  /** How often a replica looks for notifications to send besides being woken by the notifier. */
  pollIntervalMs: number;
  /** How long a notification claimed for sending stays this replica's. */
  leaseTtlMs: number;
  /** Notifications sent at once by a replica, each over a connection of nodemailer's pool. */
  concurrency: number;
}

export interface MailConfig {
  /** Absent: no mailbox is read (the HTTP door still takes mail). */
  imap?: ImapConfig;
  /** Absent: no notification is mailed (nor recorded). */
  smtp?: SmtpConfig;
  /** The `From` of every notification, `IT Support <support@example.com>`. */
  from: { name: string; address: string };
  /** The desk's own addresses, MAIL_FROM's first: mail from them is ignored and none is ever mailed to them. */
  deskAddresses: string[];
  /** Signs the ticket ids in reply addresses; absent: notifications are answered at MAIL_FROM and threaded by references. */
  replySecret?: string;
  defaultPriority: (typeof PRIORITIES)[number];
  senderLimitPerHour: number;
  /** The authserv-id of the desk's own MTA, whose Authentication-Results alone are believed. */
  trustedAuthservId?: string;
  /** A folder with templates that replace the defaults (docs/email.md). */
  templatesDir?: string;
  /** The largest message taken, in bytes. */
  maxMessageSize: number;
}

/** A URL as it may be logged: any password replaced. */
function withoutPassword(raw: string): string {
  if (URL.canParse(raw)) {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return url.href;
  }
  return raw.replace(/\/\/[^/]*@/, '//***@');
}

function mailUrl(read: EnvReader, name: string, schemes: string[]): URL | undefined {
  const raw = read.string(name, '').trim();
  if (raw === '') return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || !schemes.includes(url.protocol.slice(0, -1)) || !url.hostname) {
    throw new ConfigError(`${name} must be a ${schemes.map((scheme) => `${scheme}://`).join(' or ')} URL, got "${withoutPassword(raw)}"`);
  }
  return url;
}

/** `IT Support <support@example.com>` or a bare address. */
function parseFrom(read: EnvReader): { name: string; address: string } {
  const raw = read.string('MAIL_FROM', 'IT Support <support@example.com>').trim();
  const match = /^(?:"?([^"<]*?)"?\s*)?<([^<>\s]+)>$/.exec(raw);
  const address = deskAddressOf(match ? match[2] : raw);
  if (!address)
    throw new ConfigError(`MAIL_FROM must be an address, optionally with a name: "IT Support <support@example.com>", got "${raw}"`);
  return { name: match?.[1]?.trim() ?? '', address };
}

function smtpConfig(read: EnvReader, url: URL): SmtpConfig {
  const timeoutMs = read.intBetween('MAIL_SMTP_TIMEOUT_MS', 30_000, 100, 600_000);
  // A claim must outlast a send (connecting, the greeting, the envelope and the data, each within the timeout), or
  // another replica would send the same notification while this one still does.
  const leaseTtlMs = read.intBetween('MAIL_SEND_LEASE_TTL_MS', 120_000, 1_000, 3_600_000);
  if (leaseTtlMs < 4 * timeoutMs)
    throw new ConfigError(`MAIL_SEND_LEASE_TTL_MS must be at least 4 × MAIL_SMTP_TIMEOUT_MS (${4 * timeoutMs}), got ${leaseTtlMs}`);
  return {
    url: url.href,
    timeoutMs,
    retryMaxDelayMs: duration(read, 'MAIL_RETRY_MAX_DELAY', '5m'),
    giveUpAfterMs: duration(read, 'MAIL_GIVE_UP_AFTER', '2d'),
    pollIntervalMs: read.intBetween('MAIL_SEND_POLL_INTERVAL_MS', 1_000, 10, 60_000),
    leaseTtlMs,
    concurrency: read.intBetween('MAIL_SEND_CONCURRENCY', 5, 1, 50),
  };
}

export function parseMailConfig(read: EnvReader): MailConfig {
  const from = parseFrom(read);
  const imapUrl = mailUrl(read, 'MAIL_IMAP_URL', ['imap', 'imaps']);
  const smtpUrl = mailUrl(read, 'MAIL_SMTP_URL', ['smtp', 'smtps']);
  const extra = read.list('MAIL_DESK_ADDRESSES', '').map((entry) => {
    const canonical = deskAddressOf(entry);
    if (!canonical) throw new ConfigError(`MAIL_DESK_ADDRESSES must be comma-separated addresses, got "${entry}"`);
    return canonical;
  });
  const imapUser = imapUrl && deskAddressOf(decodeURIComponent(imapUrl.username));
  const replySecret = read.string('MAIL_REPLY_SECRET', '');
  if (replySecret !== '' && replySecret.length < 16) throw new ConfigError('MAIL_REPLY_SECRET must be at least 16 characters');
  const pollIntervalMs = read.intBetween('MAIL_POLL_INTERVAL_MS', 10_000, 100, 3_600_000);
  return {
    imap: imapUrl && {
      url: imapUrl,
      accessToken: read.string('MAIL_IMAP_ACCESS_TOKEN', '') || undefined,
      mailbox: decodeURIComponent(imapUrl.pathname.replace(/^\/+/, '')) || 'INBOX',
      processedFolder: read.string('MAIL_IMAP_PROCESSED_FOLDER', 'Processed'),
      failedFolder: read.string('MAIL_IMAP_FAILED_FOLDER', 'Failed'),
      pollIntervalMs,
      leaseTtlMs: read.intBetween('MAIL_IMAP_LEASE_TTL_MS', 60_000, 1_000, 3_600_000),
    },
    smtp: smtpUrl && smtpConfig(read, smtpUrl),
    from,
    deskAddresses: [...new Set([from.address, ...(imapUser ? [imapUser] : []), ...extra])],
    replySecret: replySecret || undefined,
    defaultPriority: read.oneOf('MAIL_DEFAULT_PRIORITY', 'MEDIUM', PRIORITIES),
    senderLimitPerHour: read.intBetween('MAIL_SENDER_LIMIT_PER_HOUR', 20, 1, 1_000_000),
    trustedAuthservId: read.string('MAIL_TRUSTED_AUTHSERV_ID', '') || undefined,
    templatesDir: read.string('MAIL_TEMPLATES_DIR', '') || undefined,
    maxMessageSize: read.intBetween('MAIL_MAX_MESSAGE_SIZE', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  };
}
