import { HttpException, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import type { TicketsConfig } from '../config/tickets-config.js';
import { Database } from '../database/database.js';
import { PeriodicWorker } from '../database/periodic-worker.js';
import { workerOwner } from '../database/worker-owner.js';
import type { WriteContext } from '../common/context/write-context.js';
import { problemOf } from './item-problem.js';
import { describeError } from '../common/errors/describe-error.js';
import { CommentsService } from '../comments/comments.service.js';
import type { CommentVisibility } from '../comments/comment-visibility.enum.js';
import { canonicalCcEmails } from '../people/cc-emails.js';
import { canonicalTags, changedTags } from '../tags/tags.js';
import type { TicketPatch } from '../tickets/dto/ticket-patch.dto.js';
import { parseTicketQuery } from '../tickets/query/ticket-query.js';
import { TicketsRepository } from '../tickets/tickets.repository.js';
import type { ImportLine } from '../imports/import-line.js';
import { TicketImporter } from '../imports/ticket-importer.js';
import { type TicketPartsWrite, TicketsService } from '../tickets/tickets.service.js';
import { finalStatus } from './job-status.js';
import { type ClaimedJob, type JobItem, JobLeaseLost, JobsRepository } from './jobs.repository.js';

/**
 * Items read from a job at a time; a cancel is seen between two such reads. An import's lines, which can be megabytes
 * each, as many as fit in IMPORT_BATCH_BYTES (at least one).
 */
const BATCH = 48;
const IMPORT_BATCH_BYTES = 4 * 1024 * 1024;
/**
 * Tickets changed at once: each is a transaction of its own on a ticket of its own, so they wait for each other only
 * for the job's row, which each updates (its counts, its lease) just before its COMMIT.
 */
const CONCURRENCY = 4;
/** Ids a snapshot reads, and records, at a time. */
const SNAPSHOT_PAGE = 10_000;
/** A ticket whose change failed this often for a reason of the service's own is given up (its outcome a 500). */
const ATTEMPTS = 3;
/** Purges of finished jobs, at most one per this interval. */
const PURGE_INTERVAL_MS = 60 * 60_000;

/**
 * Works jobs, one at a time per replica, under the job's lease (decision 29): bulk changes (docs/api.md#bulk-changes),
 * each ticket changed by the tickets' own PATCH, and imports (docs/import.md), each line written by TicketImporter.
 * Each item is worked in its own transaction, and its outcome (with the lease's fence and the job's counts) is
 * recorded in that same transaction: a job that another replica takes over goes on from the first item not recorded,
 * and never works one twice. An import's lines unchanged since their last import have nothing to write: a batch's are
 * recorded together, in one such transaction (recordUnchanged). A refused write (a 4xx) is the item's outcome; a
 * failure of the service's own (the database away) ends the pass and is tried again, up to ATTEMPTS times for one item.
 */
@Injectable()
export class JobsWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(JobsWorker.name);
  private readonly owner = workerOwner();
  private readonly settings: TicketsConfig['jobs'];
  private readonly sla: boolean;
  private readonly worker: PeriodicWorker;
  private stopping = false;
  private purgedAt = 0;

  constructor(
    private readonly database: Database,
    private readonly jobs: JobsRepository,
    private readonly tickets: TicketsService,
    private readonly ticketRows: TicketsRepository,
    private readonly comments: CommentsService,
    private readonly importer: TicketImporter,
    config: ConfigService<AppConfig, true>,
  ) {
    this.settings = config.get('tickets', { infer: true }).jobs;
    this.sla = config.get('sla.enabled', { infer: true });
    this.worker = new PeriodicWorker({ name: JobsWorker.name, intervalMs: this.settings.pollIntervalMs, pass: () => this.pass() });
  }

  onApplicationBootstrap(): void {
    this.worker.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.worker.stop();
  }

  /** A new job was recorded: look for work now. */
  wake(): void {
    this.worker.wake();
  }

  private async pass(): Promise<boolean> {
    if (Date.now() - this.purgedAt > PURGE_INTERVAL_MS) {
      // Whatever becomes of it: a purge that fails must not stop the jobs.
      this.purgedAt = Date.now();
      await this.jobs
        .purge(this.settings.retentionMs)
        .catch((error: unknown) => this.logger.warn(`Purging old jobs failed: ${describeError(error)}`));
    }
    const job = await this.jobs.claim(this.owner, this.settings.leaseTtlMs);
    if (!job) return false;
    try {
      await this.work(job);
    } catch (error) {
      if (!(error instanceof JobLeaseLost)) throw error;
      this.logger.warn(`${error.message}; it goes on there`);
    }
    return !this.stopping;
  }

  private async work(job: ClaimedJob): Promise<void> {
    // Asked to stop while another replica worked it: what that one changed but had not commented on is recorded too.
    // An import's lines have no such stage: their (large) payloads are not read for it.
    if (job.cancelRequested) return this.cancel(job, job.kind === 'import' ? [] : await this.jobs.pending(job.id, BATCH));
    if (job.total === null && !(await this.snapshot(job))) return;
    for (;;) {
      if (this.stopping) return this.jobs.release(job).catch(() => undefined);
      const items = await this.jobs.pending(job.id, BATCH, job.kind === 'import' ? IMPORT_BATCH_BYTES : undefined);
      if (items.length === 0) break;
      if (await this.jobs.cancelRequested(job.id)) return this.cancel(job, items);
      const toWork: Array<() => Promise<void>> =
        job.kind === 'import'
          ? (await this.recordUnchanged(job, items)).map(
              ({ item, line }) =>
                () =>
                  this.importOne(job, item, line),
            )
          : items.map((item) => () => this.changeOne(job, item));
      for (let from = 0; from < toWork.length && !this.stopping; from += CONCURRENCY) {
        // Every item of the group ends before a failure ends the pass: the next pass must not find one still running
        // among those it reads as not yet worked, and work it a second time.
        const settled = await Promise.allSettled(toWork.slice(from, from + CONCURRENCY).map((workOne) => workOne()));
        const failure = settled.find((outcome) => outcome.status === 'rejected');
        if (failure) throw failure.reason;
      }
    }
    const worked = (await this.jobs.find(job.id))!;
    await this.jobs.finish(job, finalStatus(worked.done, worked.failed, false));
  }

  /**
   * The job's tickets: its ids, or its filter's matches read in one transaction (one snapshot, consistent reads that lock
   * nothing), a page at a time, each page recorded with the lease's fence. A snapshot cut short is read again whole.
   * A filter refused now (a custom field it names was deleted since) fails the job. Answers whether to go on.
   */
  private async snapshot(job: ClaimedJob): Promise<boolean> {
    await this.jobs.dropItems(job.id);
    const { ids, filter } = job.request;
    const record = (from: number, page: readonly number[]) =>
      this.database.transaction(async (transaction) => {
        await this.jobs.fence(transaction, job, this.settings.leaseTtlMs);
        await this.jobs.addItems(transaction, job.id, from, page);
      });
    if (ids) {
      for (let from = 0; from < ids.length; from += SNAPSHOT_PAGE) await record(from + 1, ids.slice(from, from + SNAPSHOT_PAGE));
      await this.database.transaction((transaction) => this.jobs.setTotal(transaction, job.id, ids.length));
      return true;
    }
    let query;
    try {
      query = await this.tickets.checked(parseTicketQuery(filter!, 'v2', this.sla));
    } catch (error) {
      if (!(error instanceof HttpException) || error.getStatus() >= 500) throw error;
      await this.jobs.finish(job, 'failed', problemOf(error, `/api/v2/jobs/${job.id}`, 'Its filter is refused now: '));
      return false;
    }
    let total = 0;
    await this.database.transaction(async (reading) => {
      for (let afterId = 0; ;) {
        const page = await this.ticketRows.matchingIds(reading, query, afterId, SNAPSHOT_PAGE);
        if (page.length > 0) await record(total + 1, page);
        total += page.length;
        if (page.length < SNAPSHOT_PAGE) break;
        afterId = page.at(-1)!;
      }
    });
    await this.database.transaction((transaction) => this.jobs.setTotal(transaction, job.id, total));
    return true;
  }

  /** Ends a job asked to stop: a ticket it changed but had not yet commented on is recorded as failed, saying so. */
  private async cancel(job: ClaimedJob, items: JobItem[]): Promise<void> {
    for (const item of items.filter((pending) => pending.stage === 'changed')) {
      await this.failed(
        job,
        item,
        problemOf(new HttpException('The job was cancelled after its change, before its comment', 409), `/api/v2/tickets/${item.ticketId}`),
      );
    }
    await this.jobs.finish(job, 'cancelled');
  }

  /** A refused write is the item's outcome; another failure is tried again (the pass ends), until ATTEMPTS. */
  private async refused(job: ClaimedJob, item: JobItem, error: unknown, instance: string, preface = ''): Promise<void> {
    if (error instanceof JobLeaseLost) throw error;
    const ours = !(error instanceof HttpException) || error.getStatus() >= 500;
    if (ours && item.attempts + 1 < ATTEMPTS) {
      await this.jobs.countAttempt(job.id, item.position);
      throw error;
    }
    if (ours) this.logger.error(`Job ${job.id}: item ${item.position} given up after ${ATTEMPTS} attempts: ${describeError(error)}`);
    await this.failed(job, item, problemOf(error, instance, preface));
  }

  /**
   * An import's lines last imported as they are now (most of a file imported again) are recorded together, in one
   * transaction, without a transaction each; the others are left to be written. At READ COMMITTED, as a line's own
   * write: the shared locks of the lines found take no gap. Each line is parsed here, once.
   */
  private async recordUnchanged(job: ClaimedJob, items: JobItem[]): Promise<Array<{ item: JobItem; line: ImportLine }>> {
    const lines = items.map((item) => JSON.parse(item.payload!) as ImportLine);
    const unchanged = await this.database.transaction(
      async (transaction) => {
        const found = await this.importer.unchanged(transaction, lines);
        if (found.size === 0) return found;
        await this.jobs.fence(transaction, job, this.settings.leaseTtlMs, { done: found.size });
        for (const [i, item] of items.entries()) {
          const ticketId = found.get(lines[i].externalId);
          if (ticketId !== undefined)
            await this.jobs.record(transaction.later, job.id, item.position, { outcome: 'succeeded', ticketId, action: 'unchanged' });
        }
        return found;
      },
      { isolation: 'READ COMMITTED' },
    );
    return items.flatMap((item, i) => (unchanged.has(lines[i].externalId) ? [] : [{ item, line: lines[i] }]));
  }

  /** An import's line: written, and its outcome recorded, in one transaction. */
  private async importOne(job: ClaimedJob, item: JobItem, line: ImportLine): Promise<void> {
    try {
      await this.importer.write(line, job.createdAt, job.createdBy, async (transaction, outcome) => {
        await this.jobs.fence(transaction, job, this.settings.leaseTtlMs, { done: 1 });
        await this.jobs.record(transaction.later, job.id, item.position, { outcome: 'succeeded', ...outcome });
      });
    } catch (error) {
      await this.refused(job, item, error, `/api/v2/jobs/${job.id}/results`, `Line ${item.position}: `);
    }
  }

  private async changeOne(job: ClaimedJob, item: JobItem): Promise<void> {
    const { patch, comment } = job.request;
    const { ccEmails, tags, fields, ...ticketFields } = patch as Record<string, unknown>;
    const changes = Object.keys(patch).length > 0;
    const instance = `/api/v2/tickets/${item.ticketId}`;
    /** The write's context: the job's author acts, and the item's step is recorded in the write's own transaction. */
    const recording = (last: boolean): WriteContext => ({
      actor: job.createdBy,
      recordWith: async (transaction) => {
        await this.jobs.fence(transaction, job, this.settings.leaseTtlMs, last ? { done: 1 } : {});
        await this.jobs.record(transaction, job.id, item.position, last ? { outcome: 'succeeded' } : { stage: 'changed' });
      },
    });
    const refused = (error: unknown, preface = '') => this.refused(job, item, error, instance, preface);
    if (changes && item.stage !== 'changed') {
      const tagChange = tags as { add?: string[] | null; remove?: string[] | null } | null | undefined;
      const parts: TicketPartsWrite = {
        objectName: 'bulkTicketPatch',
        ...(ccEmails !== undefined && { ccEmails: canonicalCcEmails(ccEmails) }),
        ...(tagChange && {
          tags: (current: string[]) => changedTags(current, canonicalTags(tagChange.add)!, canonicalTags(tagChange.remove)!),
        }),
        ...(fields !== undefined && { fields: { given: fields, write: 'patch' as const } }),
      };
      try {
        await this.tickets.patch(String(item.ticketId), ticketFields as TicketPatch, undefined, recording(!comment), parts);
      } catch (error) {
        return refused(error);
      }
    }
    if (!comment) return;
    const body = {
      body: comment.body,
      author: comment.author ?? job.createdBy,
      visibility: comment.visibility as CommentVisibility | undefined,
    };
    try {
      await this.comments.add(String(item.ticketId), body, recording(true));
    } catch (error) {
      return refused(error, changes ? 'The change was made, its comment was not: ' : '');
    }
  }

  /** Records the item as failed, with its problem, counted in the job. */
  private async failed(job: ClaimedJob, item: JobItem, problem: Record<string, unknown>): Promise<void> {
    await this.database.transaction(async (transaction) => {
      await this.jobs.fence(transaction, job, this.settings.leaseTtlMs, { failed: 1 });
      await this.jobs.record(transaction, job.id, item.position, { outcome: 'failed', error: problem });
    });
  }
}
