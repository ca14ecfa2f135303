import { HttpException, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import type { TicketsConfig } from '../config/tickets-config.js';
import { Database } from '../database/database.js';
import { PeriodicWorker } from '../database/periodic-worker.js';
import { workerOwner } from '../database/worker-owner.js';
import type { WriteContext } from '../common/context/write-context.js';
import { CommentsService } from '../comments/comments.service.js';
import type { CommentVisibility } from '../comments/comment-visibility.enum.js';
import { canonicalCcEmails } from '../people/cc-emails.js';
import { canonicalTags, changedTags } from '../tags/tags.js';
import type { TicketPatch } from '../tickets/dto/ticket-patch.dto.js';
import { parseTicketQuery } from '../tickets/query/ticket-query.js';
import { type TicketPartsWrite, TicketsService } from '../tickets/tickets.service.js';
import { finalStatus } from './job-status.js';
import { type ClaimedJob, type JobItem, JobLeaseLost, JobsRepository } from './jobs.repository.js';

/** Tickets read from a job at a time; a cancel is seen between two such reads. */
const BATCH = 50;
/** Purges of finished jobs, at most one per this interval. */
const PURGE_INTERVAL_MS = 60 * 60_000;

/**
 * Works bulk jobs (docs/api.md#bulk-changes), one at a time per replica, under the job's lease (decision 29). Each
 * ticket is changed by the tickets' own PATCH, in its own transaction, and its item's outcome (with the lease's fence
 * and the job's counts) is recorded in that same transaction: a job that another replica takes over goes on from the
 * first ticket not recorded, and never changes one twice. A refused change (any 4xx) is the item's outcome; anything
 * else (the database gone) ends the pass, and the job is taken up again at the next.
 */
@Injectable()
export class BulkWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(BulkWorker.name);
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
    private readonly comments: CommentsService,
    config: ConfigService<AppConfig, true>,
  ) {
    this.settings = config.get('tickets', { infer: true }).jobs;
    this.sla = config.get('sla.enabled', { infer: true });
    this.worker = new PeriodicWorker({ name: BulkWorker.name, intervalMs: this.settings.pollIntervalMs, pass: () => this.pass() });
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
      await this.jobs.purge(this.settings.retentionMs);
      this.purgedAt = Date.now();
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
    if (job.total === null) {
      const { ids, filter } = job.request;
      const tickets = ids ?? (await this.tickets.matchingIds(parseTicketQuery(filter!, 'v2', this.sla)));
      await this.database.transaction(async (transaction) => {
        await this.jobs.fence(transaction, job, this.settings.leaseTtlMs);
        await this.jobs.snapshot(transaction, job.id, tickets);
      });
    }
    for (;;) {
      if (this.stopping) return this.jobs.release(job);
      if (await this.jobs.cancelRequested(job.id)) return this.jobs.finish(job, 'cancelled');
      const items = await this.jobs.pending(job.id, BATCH);
      if (items.length === 0) break;
      for (const item of items) await this.workOne(job, item);
    }
    const worked = (await this.jobs.find(job.id))!;
    await this.jobs.finish(job, finalStatus(worked.done, worked.failed, false));
  }

  private async workOne(job: ClaimedJob, item: JobItem): Promise<void> {
    const { patch, comment } = job.request;
    const { ccEmails, tags, fields, ...ticketFields } = patch as Record<string, unknown>;
    const changes = Object.keys(patch).length > 0;
    /** The write's context: the job's author acts, and the item's step is recorded in the write's own transaction. */
    const recording = (last: boolean): WriteContext => ({
      actor: job.createdBy,
      recordWith: async (transaction) => {
        await this.jobs.fence(transaction, job, this.settings.leaseTtlMs, last ? { done: 1 } : {});
        await this.jobs.record(transaction, job.id, item.position, last ? { outcome: 'succeeded' } : { stage: 'changed' });
      },
    });
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
        return this.failed(job, item, error, '');
      }
    }
    if (!comment) return;
    try {
      await this.comments.add(
        String(item.ticketId),
        { body: comment.body, visibility: comment.visibility as CommentVisibility | undefined },
        recording(true),
      );
    } catch (error) {
      return this.failed(job, item, error, changes ? 'The change was made, its comment was not: ' : '');
    }
  }

  /** A refused write is the item's outcome; anything else is thrown, and the job is taken up again later. */
  private async failed(job: ClaimedJob, item: JobItem, error: unknown, preface: string): Promise<void> {
    if (!(error instanceof HttpException) || error.getStatus() >= 500) throw error;
    const detail = `${preface}${error.message}`;
    await this.database.transaction(async (transaction) => {
      await this.jobs.fence(transaction, job, this.settings.leaseTtlMs, { failed: 1 });
      await this.jobs.record(transaction, job.id, item.position, { outcome: 'failed', error: { status: error.getStatus(), detail } });
    });
  }
}
