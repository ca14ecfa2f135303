import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { Queryable } from '../database/statement-batch.js';
import type { SqlStatement } from '../tickets/query/ticket-query-sql.js';
import type { StoredBulkRequest } from './bulk-request.js';
import type { JobStatus } from './job-status.js';

export interface StoredJob {
  id: number;
  kind: 'bulk';
  status: JobStatus;
  request: StoredBulkRequest;
  createdBy: string | null;
  total: number | null;
  done: number;
  failed: number;
  cancelRequested: boolean;
  createdAt: Date;
  finishedAt: Date | null;
}

/** A job as a replica holds it: its lease, which fences what it records. */
export interface ClaimedJob extends StoredJob {
  owner: string;
  epoch: number;
}

export interface JobItem {
  position: number;
  ticketId: number;
  /** `changed`: the ticket's change committed, its comment not yet. */
  stage: string | null;
}

interface JobRow {
  id: string | number;
  kind: 'bulk';
  status: JobStatus;
  request: string;
  created_by: string | null;
  total: number | null;
  done: number;
  failed: number;
  cancel_requested: number;
  created_at: Date;
  finished_at: Date | null;
  lease_owner: string | null;
  lease_epoch: string | number;
}

const jobOf = (row: JobRow): StoredJob => ({
  id: Number(row.id),
  kind: row.kind,
  status: row.status,
  request: JSON.parse(row.request) as StoredBulkRequest,
  createdBy: row.created_by,
  total: row.total === null ? null : Number(row.total),
  done: Number(row.done),
  failed: Number(row.failed),
  cancelRequested: Number(row.cancel_requested) === 1,
  createdAt: row.created_at,
  finishedAt: row.finished_at,
});

/** A replica's lease of a job went to another (it was too slow to renew it): what it was to record is not. */
export class JobLeaseLost extends Error {
  constructor(jobId: number) {
    super(`The lease of job ${jobId} went to another replica`);
  }
}

/** `jobs` and `job_items` (migration Jobs). Times are the database's, so replicas on different hosts agree on a lease's expiry. */
@Injectable()
export class JobsRepository {
  constructor(private readonly database: Database) {}

  async insert(transaction: Queryable, kind: 'bulk', request: StoredBulkRequest, createdBy: string | null, now: Date): Promise<StoredJob> {
    const { insertId } = (await transaction.query(
      "INSERT INTO jobs (kind, status, request, created_by, created_at) VALUES (?, 'queued', ?, ?, ?)",
      [kind, JSON.stringify(request), createdBy, now],
    )) as { insertId: number };
    return {
      id: Number(insertId),
      kind,
      status: 'queued',
      request,
      createdBy,
      total: null,
      done: 0,
      failed: 0,
      cancelRequested: false,
      createdAt: now,
      finishedAt: null,
    };
  }

  async find(id: number | string, manager: Queryable = this.database): Promise<StoredJob | undefined> {
    const [row] = (await manager.query('SELECT * FROM jobs WHERE id = ?', [id])) as JobRow[];
    return row && jobOf(row);
  }

  /**
   * Claims the oldest job that is waiting, whose lease expired (another replica stopped working it) or that is this
   * owner's (a pass of its that failed), for `ttlMs`; each claim bumps the epoch, so an earlier holder records nothing more.
   */
  async claim(owner: string, ttlMs: number): Promise<ClaimedJob | undefined> {
    await this.database.query(
      `UPDATE jobs SET lease_epoch = lease_epoch + 1, lease_owner = ?, lease_until = NOW(3) + INTERVAL ? MICROSECOND,
         status = 'running', started_at = COALESCE(started_at, NOW(3))
       WHERE status IN ('queued', 'running') AND (lease_until IS NULL OR lease_until < NOW(3) OR lease_owner = ?) ORDER BY id LIMIT 1`,
      [owner, ttlMs * 1000, owner],
    );
    const [row] = (await this.database.query(
      "SELECT * FROM jobs WHERE status = 'running' AND lease_owner = ? AND lease_until >= NOW(3) ORDER BY id LIMIT 1",
      [owner],
    )) as JobRow[];
    return row && { ...jobOf(row), owner, epoch: Number(row.lease_epoch) };
  }

  /** In the caller's transaction: renews the lease while it is still this claim's, counting what the write did; or throws JobLeaseLost. */
  async fence(db: Queryable, job: ClaimedJob, ttlMs: number, counted: { done?: number; failed?: number } = {}): Promise<void> {
    const result = (await db.query(
      `UPDATE jobs SET lease_until = NOW(3) + INTERVAL ? MICROSECOND, done = done + ?, failed = failed + ?
       WHERE id = ? AND lease_owner = ? AND lease_epoch = ?`,
      [ttlMs * 1000, counted.done ?? 0, counted.failed ?? 0, job.id, job.owner, job.epoch],
    )) as { affectedRows: number };
    if (result.affectedRows !== 1) throw new JobLeaseLost(job.id);
  }

  /** The job's tickets, numbered: its ids, or a filter's matches now (the snapshot); answers how many. */
  async snapshot(transaction: Queryable, jobId: number, tickets: number[] | SqlStatement): Promise<number> {
    if (Array.isArray(tickets)) {
      for (let from = 0; from < tickets.length; from += 5_000) {
        const chunk = tickets.slice(from, from + 5_000);
        await transaction.query('INSERT INTO job_items (job_id, position, ticket_id) VALUES ?', [
          chunk.map((ticketId, i) => [jobId, from + i + 1, ticketId]),
        ]);
      }
    } else {
      await transaction.query(
        `INSERT INTO job_items (job_id, position, ticket_id)
         SELECT ?, ROW_NUMBER() OVER (ORDER BY matched.id), matched.id FROM (${tickets.sql}) matched`,
        [jobId, ...tickets.params],
      );
    }
    const [row] = (await transaction.query('SELECT COUNT(*) AS n FROM job_items WHERE job_id = ?', [jobId])) as Array<{
      n: number | string;
    }>;
    const total = Number(row.n);
    await transaction.query('UPDATE jobs SET total = ? WHERE id = ?', [total, jobId]);
    return total;
  }

  /** The next tickets of the job not yet worked, in order. */
  async pending(jobId: number, limit: number): Promise<JobItem[]> {
    const rows = (await this.database.query(
      'SELECT position, ticket_id, stage FROM job_items WHERE job_id = ? AND outcome IS NULL ORDER BY position LIMIT ?',
      [jobId, limit],
    )) as Array<{ position: number; ticket_id: string | number; stage: string | null }>;
    return rows.map((row) => ({ position: Number(row.position), ticketId: Number(row.ticket_id), stage: row.stage }));
  }

  /** In the caller's transaction: how far the item came (`stage`) or how it ended (`outcome`, and why it failed). */
  async record(
    db: Queryable,
    jobId: number,
    position: number,
    step: { stage?: string; outcome?: 'succeeded' | 'failed'; error?: object },
  ): Promise<void> {
    await db.query(
      'UPDATE job_items SET stage = ?, outcome = ?, error = ?, finished_at = IF(? IS NULL, NULL, NOW(3)) WHERE job_id = ? AND position = ?',
      [step.stage ?? null, step.outcome ?? null, step.error ? JSON.stringify(step.error) : null, step.outcome ?? null, jobId, position],
    );
  }

  /** Ends the job, while it is still this claim's. */
  async finish(job: ClaimedJob, status: JobStatus): Promise<void> {
    await this.database.query(
      `UPDATE jobs SET status = ?, finished_at = NOW(3), lease_owner = NULL, lease_until = NULL
       WHERE id = ? AND lease_owner = ? AND lease_epoch = ?`,
      [status, job.id, job.owner, job.epoch],
    );
  }

  /** Frees the lease (on shutdown), so another replica goes on at once. */
  async release(job: ClaimedJob): Promise<void> {
    await this.database.query(
      'UPDATE jobs SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ? AND lease_epoch = ?',
      [job.id, job.owner, job.epoch],
    );
  }

  /** Asks a job to stop: a waiting one ends at once; a running one between two tickets. Answers the job as it is then. */
  async cancel(id: number | string): Promise<StoredJob | undefined> {
    await this.database.query("UPDATE jobs SET status = 'cancelled', finished_at = NOW(3) WHERE id = ? AND status = 'queued'", [id]);
    await this.database.query("UPDATE jobs SET cancel_requested = 1 WHERE id = ? AND status = 'running'", [id]);
    return this.find(id);
  }

  /** Whether the job was asked to stop. */
  async cancelRequested(id: number): Promise<boolean> {
    const [row] = (await this.database.query('SELECT cancel_requested FROM jobs WHERE id = ?', [id])) as JobRow[];
    return !row || Number(row.cancel_requested) === 1;
  }

  /** The outcomes of the job's tickets worked so far, in order, a page (one row more than `limit`) after `afterPosition`. */
  async results(
    jobId: number,
    afterPosition: number,
    limit: number,
  ): Promise<
    Array<{ position: number; ticketId: number; outcome: 'succeeded' | 'failed'; error: { status: number; detail: string } | null }>
  > {
    const rows = (await this.database.query(
      'SELECT position, ticket_id, outcome, error FROM job_items WHERE job_id = ? AND position > ? AND outcome IS NOT NULL ORDER BY position LIMIT ?',
      [jobId, afterPosition, limit + 1],
    )) as Array<{ position: number; ticket_id: string | number; outcome: 'succeeded' | 'failed'; error: string | null }>;
    return rows.map((row) => ({
      position: Number(row.position),
      ticketId: Number(row.ticket_id),
      outcome: row.outcome,
      error: row.error === null ? null : (JSON.parse(row.error) as { status: number; detail: string }),
    }));
  }

  /** Deletes the jobs finished longer ago than the retention (their items go with them), a batch at a time. */
  async purge(retentionMs: number): Promise<number> {
    const result = (await this.database.query('DELETE FROM jobs WHERE finished_at < NOW(3) - INTERVAL ? MICROSECOND LIMIT 100', [
      retentionMs * 1000,
    ])) as { affectedRows: number };
    return result.affectedRows;
  }
}
