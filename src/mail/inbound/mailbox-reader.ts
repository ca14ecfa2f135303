import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ImapFlow } from 'imapflow';
import type { AppConfig } from '../../config/app-config.js';
import type { ImapConfig } from '../../config/mail-config.js';
import { PeriodicWorker } from '../../database/periodic-worker.js';
import { mapError } from '../../common/errors/error-mapping.js';
import { MailMetrics } from '../mail.metrics.js';
import { InboundMailService } from './inbound-mail.service.js';
import { MailboxLeaseLost, MailboxLeasesRepository } from './mailbox-leases.repository.js';
import { workerOwner } from '../../database/worker-owner.js';

/** Messages handled per pass; a fuller mailbox goes on in the next pass at once. */
const BATCH = 100;

/** Whether handing the message in again later may succeed: the database was out of reach, or the lease went elsewhere. */
function transient(error: unknown): boolean {
  return error instanceof MailboxLeaseLost || mapError(error).status === 503;
}

/**
 * Reads MAIL_IMAP_URL's mailbox with imapflow: every MAIL_POLL_INTERVAL_MS, and at once when IDLE reports new mail
 * (imapflow idles on the open connection between commands where the server offers IDLE). Under a lease, one replica
 * reads at a time; each unseen message goes through InboundMailService, its record fenced by the lease's epoch, and
 * is then flagged \Seen and moved to MAIL_IMAP_PROCESSED_FOLDER; one that cannot be handled goes to
 * MAIL_IMAP_FAILED_FOLDER with the reason logged. A message stays where it is only while the database is out of reach
 * (it is handed in again then, and its Message-ID makes that harmless).
 */
@Injectable()
export class MailboxReader implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MailboxReader');
  private readonly imap?: ImapConfig;
  private readonly worker: PeriodicWorker;
  private readonly owner = workerOwner();
  /** Names the lease: the server, the user and the mailbox, never the password. */
  private readonly mailboxKey: string;
  private client?: ImapFlow;
  private foldersReady = false;
  /** Messages the server would neither give nor move: passed over, so that they never hold up the rest. */
  private readonly unmovable = new Set<number>();

  constructor(
    private readonly inbound: InboundMailService,
    private readonly leases: MailboxLeasesRepository,
    private readonly metrics: MailMetrics,
    config: ConfigService<AppConfig, true>,
  ) {
    this.imap = config.get('mail', { infer: true }).imap;
    const url = this.imap?.url;
    this.mailboxKey = url ? `${url.protocol}//${decodeURIComponent(url.username)}@${url.host}/${this.imap!.mailbox}`.slice(0, 255) : '';
    this.worker = new PeriodicWorker({
      name: MailboxReader.name,
      intervalMs: this.imap?.pollIntervalMs ?? 10_000,
      pass: () => this.pass(),
    });
  }

  onApplicationBootstrap(): void {
    if (this.imap) this.worker.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker.stop();
    await this.disconnect();
    if (this.imap) await this.leases.release(this.mailboxKey, this.owner).catch(() => undefined);
  }

  /** Whether the mailbox answers (for the health component): the open connection, or a new one that logs in. */
  async verify(): Promise<void> {
    if (!this.imap || this.client?.usable) return;
    const client = this.newClient();
    // An error after the login (the server closing the connection) must not go unheard: it would end the process.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } finally {
      await client.logout().catch(() => client.close());
    }
  }

  private async pass(): Promise<boolean> {
    const imap = this.imap!;
    const epoch = await this.leases.claim(this.mailboxKey, this.owner, imap.leaseTtlMs);
    if (epoch === undefined) {
      await this.disconnect();
      return false;
    }
    const client = await this.connected();
    const lock = await client.getMailboxLock(imap.mailbox);
    try {
      if (!this.foldersReady) {
        // Created if missing (an existing folder is no error to imapflow).
        await client.mailboxCreate(imap.processedFolder);
        await client.mailboxCreate(imap.failedFolder);
        this.foldersReady = true;
      }
      // Every message still in the mailbox, read or not: an agent may have opened one in their mail client, and one
      // whose move failed after it was handled comes back as a duplicate and is moved then.
      const waiting = ((await client.search({ all: true }, { uid: true })) || []).filter((uid) => !this.unmovable.has(uid));
      for (const uid of waiting.slice(0, BATCH)) {
        if (!(await this.handleOrSetAside(client, uid, epoch))) return false;
      }
      return waiting.length > BATCH;
    } finally {
      lock.release();
    }
  }

  /**
   * Handles one message; an IMAP command refused for it (a damaged message, say), while the connection stays usable,
   * is not allowed to hold up the mail behind it: it is moved to the failed folder, or when even that is refused,
   * passed over by this process from then on (logged).
   */
  private async handleOrSetAside(client: ImapFlow, uid: number, epoch: number): Promise<boolean> {
    try {
      return await this.handle(client, uid, epoch);
    } catch (error) {
      if (!client.usable) throw error;
      this.logger.error(`Message ${uid}: the server refused a command for it: ${(error as Error).message}`);
      this.metrics.received('failed');
      await client.messageMove(String(uid), this.imap!.failedFolder, { uid: true }).catch(() => this.unmovable.add(uid));
      return true;
    }
  }

  /** Handles one message; false when the pass should stop (it could not be handled now). */
  private async handle(client: ImapFlow, uid: number, epoch: number): Promise<boolean> {
    const imap = this.imap!;
    // Its size first: a message too large is never downloaded.
    const head = await client.fetchOne(String(uid), { size: true }, { uid: true });
    if (!head) return true;
    const message =
      head.size !== undefined && head.size <= this.maxSize()
        ? await client.fetchOne(String(uid), { source: true }, { uid: true })
        : undefined;
    let folder = imap.processedFolder;
    if (!message || !message.source) {
      folder = imap.failedFolder;
      this.metrics.received('failed');
      this.logger.warn(`Message ${uid} moved to ${folder}: it is larger than MAIL_MAX_MESSAGE_SIZE (${head.size} bytes)`);
    } else {
      try {
        await this.inbound.receive(message.source, (transaction) =>
          this.leases.fence(transaction, this.mailboxKey, this.owner, epoch, imap.leaseTtlMs),
        );
      } catch (error) {
        if (transient(error)) {
          this.logger.warn(`Message ${uid} stays in ${imap.mailbox} for now: ${(error as Error).message}`);
          return false;
        }
        folder = imap.failedFolder;
        this.metrics.received('failed');
        this.logger.error(`Message ${uid} moved to ${folder}: ${(error as Error).stack ?? String(error)}`);
      }
    }
    await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
    await client.messageMove(String(uid), folder, { uid: true });
    return true;
  }

  private maxSize(): number {
    return this.inbound.maxMessageSize;
  }

  private async connected(): Promise<ImapFlow> {
    if (this.client?.usable) return this.client;
    await this.disconnect();
    const client = this.newClient();
    client.on('error', (error: Error) => this.logger.warn(`IMAP: ${error.message}`));
    client.on('close', () => {
      if (this.client === client) this.client = undefined;
    });
    // New mail while idle: a pass at once (the lease is checked there).
    client.on('exists', () => this.worker.wake());
    await client.connect();
    await client.mailboxOpen(this.imap!.mailbox);
    this.client = client;
    this.foldersReady = false;
    return client;
  }

  private newClient(): ImapFlow {
    const { url, accessToken } = this.imap!;
    const secure = url.protocol === 'imaps:';
    const user = decodeURIComponent(url.username);
    return new ImapFlow({
      host: url.hostname,
      port: url.port ? Number(url.port) : secure ? 993 : 143,
      secure,
      auth: accessToken ? { user, accessToken } : { user, pass: decodeURIComponent(url.password) },
      logger: false,
      // IDLE a second after the last command (imapflow's default waits 15 s), so that new mail wakes a pass at once.
      autoIdleDelay: 1_000,
    });
  }

  private async disconnect(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await client.logout().catch(() => client.close());
  }
}
