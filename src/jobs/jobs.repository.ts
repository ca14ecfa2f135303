import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { Queryable } from '../database/statement-batch.js';
import type { StoredBulkRequest } from './bulk-request.js';
import type { JobStatus } from './job-status.js';

export type JobKind = 'bulk' | 'import';

export interface StoredJob {
  id: number;
  kind: JobKind;
  status: JobStatus;
  /** A bulk change as it was asked for; an import's is empty (its lines are its items). */
  request: StoredBulkRequest;
  createdBy: string | null;
  total: number | null;
  done: number;
  failed: number;
  cancelRequested: boolean;
  createdAt: Date;
  finishedAt: Date | null;
  /** Why it failed as a whole, as problem+json says it. */
  error: object | null;
}

/** A job as a replica holds it: its lease, which fences what it records. */
export interface ClaimedJob extends StoredJob {
  owner: string;
  epoch: number;
}

export interface JobItem {
  position: number;
  /** The ticket it changes (a bulk change's); an import's line names none until it is written (0). */
  ticketId: number;
  /** `changed`: the ticket's change committed, its comment not yet. */
  stage: string | null;
  attempts: number;
  /** An import's line, as it was checked when received (JSON). */
  payload: string | null;
}

/** A line of an import as it is received: its number, and its checked line or why it is refused. */
export interface ReceivedLine {
  position: number;
  externalId: string | null;
  payload?: string;
  error?: object;
}

/** A worked item, as GET /api/v2/jobs/{id}/results shows it. */
export interface JobResult {
  position: number;
  ticketId: number | null;
  externalId: string | null;
  action: 'created' | 'updated' | 'unchanged' | null;
  outcome: 'succeeded' | 'failed';
  error: Record<string, unknown> | null;
}

interface JobRow {
  id: string | number;
  kind: JobKind;
  status: JobStatus;
  request: string;
  created_by: string | null;
  total: number | null;
  done: number;
  failed: number;
  cancel_requested: number;
  created_at: Date;
  finished_at: Date | null;
  error: string | null;
  lease_owner: string | null;
  lease_epoch: string | number;
}

const jobOf = (row: JobRow): StoredJob => ({
  id: Number(row.id),
  kind: row.kind,
  // An import still receiving its lines has not been announced; read by its id meanwhile, it waits, as a queued job does.
  status: row.status === ('receiving' as JobStatus) ? 'queued' : row.status,
  request: JSON.parse(row.request) as StoredBulkRequest,
  createdBy: row.created_by,
  total: row.total === null ? null : Number(row.total),
  done: Number(row.done),
  failed: Number(row.failed),
  cancelRequested: Number(row.cancel_requested) === 1,
  createdAt: row.created_at,
  finishedAt: row.finished_at,
  error: row.error === null ? null : (JSON.parse(row.error) as object),
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

  /**
   * A new job, queued; an import's is `receiving` until its lines are all recorded (no replica claims it before: see
   * received), then queued.
   */
  async insert(
    transaction: Queryable,
    kind: JobKind,
    request: StoredBulkRequest,
    createdBy: string | null,
    now: Date,
    status: 'queued' | 'receiving' = 'queued',
  ): Promise<StoredJob> {
    const { insertId } = (await transaction.query(
      'INSERT INTO jobs (kind, status, request, created_by, created_at) VALUES (?, ?, ?, ?, ?)',
      [kind, status, JSON.stringify(request), createdBy, now],
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
      error: null,
    };
  }

  async find(id: number | string, manager: Queryable = this.database): Promise<StoredJob | undefined> {
    const [row] = (await manager.query('SELECT * FROM jobs WHERE id = ?', [id])) as JobRow[];
    return row && jobOf(row);
  }

  /**
   * Claims the oldest job that is waiting or whose lease expired (its replica stopped working it, or a pass of its
   * failed: the job waits out the lease, then any replica may go on), for `ttlMs`; each claim bumps the epoch, so an
   * earlier holder records nothing more.
   */
  async claim(owner: string, ttlMs: number): Promise<ClaimedJob | undefined> {
    await this.database.query(
      `UPDATE jobs SET lease_epoch = lease_epoch + 1, lease_owner = ?, lease_until = NOW(3) + INTERVAL ? MICROSECOND,
         status = 'running', started_at = COALESCE(started_at, NOW(3))
       WHERE status IN ('queued', 'running') AND (lease_until IS NULL OR lease_until < NOW(3)) ORDER BY id LIMIT 1`,
      [owner, ttlMs * 1000],
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

  /** Numbers the job's tickets from `from` on (a part of its snapshot), in the caller's transaction. */
  async addItems(transaction: Queryable, jobId: number, from: number, ticketIds: readonly number[]): Promise<void> {
    if (ticketIds.length === 0) return;
    await transaction.query('INSERT INTO job_items (job_id, position, ticket_id) VALUES ?', [
      ticketIds.map((ticketId, i) => [jobId, from + i, ticketId]),
    ]);
  }

  /** Records received lines of an import: a line refused is worked already (failed, with its problem). */
  async addLines(transaction: Queryable, jobId: number, lines: readonly ReceivedLine[]): Promise<void> {
    if (lines.length === 0) return;
    await transaction.query(
      'INSERT INTO job_items (job_id, position, external_id, payload, payload_bytes, outcome, error, finished_at) VALUES ?',
      [
        lines.map((line) => [
          jobId,
          line.position,
          line.externalId,
          line.payload ?? null,
          line.payload === undefined ? null : Buffer.byteLength(line.payload),
          line.error ? 'failed' : null,
          line.error ? JSON.stringify(line.error) : null,
          line.error ? new Date() : null,
        ]),
      ],
    );
  }

  /** Every line of the import is recorded: the job is queued, with its lines counted (the refused ones as failed). */
  async received(transaction: Queryable, jobId: number, total: number, failed: number): Promise<void> {
    await transaction.query("UPDATE jobs SET status = 'queued', total = ?, failed = ? WHERE id = ? AND status = 'receiving'", [
      total,
      failed,
      jobId,
    ]);
  }

  /** Deletes a job and its items (an import whose body did not arrive whole). */
  async drop(jobId: number): Promise<void> {
    await this.dropItems(jobId);
    await this.database.query('DELETE FROM jobs WHERE id = ?', [jobId]);
  }

  /** Drops a snapshot its replica did not finish (the job starts again from its filter). */
  async dropItems(jobId: number): Promise<void> {
    for (;;) {
      const result = (await this.database.query('DELETE FROM job_items WHERE job_id = ? LIMIT 10000', [jobId])) as { affectedRows: number };
      if (result.affectedRows < 10_000) return;
    }
  }

  /** The snapshot is whole: how many tickets the job has. */
  async setTotal(transaction: Queryable, jobId: number, total: number): Promise<void> {
    await transaction.query('UPDATE jobs SET total = ? WHERE id = ?', [total, jobId]);
  }

  /**
   * The next items of the job not yet worked, in order: at most `limit`, their payloads (an import's lines) within
   * `bytes` together, the first whatever its size.
   */
  async pending(jobId: number, limit: number, bytes = Number.MAX_SAFE_INTEGER): Promise<JobItem[]> {
    // Chosen by their sizes (payload_bytes) alone: the lines themselves are read only for those chosen.
    const rows = (await this.database.query(
      `SELECT i.position, i.ticket_id, i.stage, i.attempts, i.payload FROM (
         SELECT position, SUM(size) OVER (ORDER BY position) AS upto, ROW_NUMBER() OVER (ORDER BY position) AS n
         FROM (SELECT position, COALESCE(payload_bytes, 0) AS size FROM job_items
               WHERE job_id = ? AND outcome IS NULL ORDER BY position LIMIT ?) next_items) counted
       JOIN job_items i ON i.job_id = ? AND i.position = counted.position
       WHERE counted.n = 1 OR counted.upto <= ? ORDER BY i.position`,
      [jobId, limit, jobId, bytes],
    )) as Array<{ position: number; ticket_id: string | number | null; stage: string | null; attempts: number; payload: string | null }>;
    return rows.map((row) => ({
      position: Number(row.position),
      ticketId: Number(row.ticket_id),
      stage: row.stage,
      attempts: Number(row.attempts),
      payload: row.payload,
    }));
  }

  /** A ticket's change failed for a reason of the service's own: counted, so that it is given up after a few. */
  async countAttempt(jobId: number, position: number): Promise<void> {
    await this.database.query('UPDATE job_items SET attempts = attempts + 1 WHERE job_id = ? AND position = ?', [jobId, position]);
  }

  /** In the caller's transaction: how far the item came (`stage`) or how it ended (`outcome`, and why it failed). */
  async record(
    db: Queryable,
    jobId: number,
    position: number,
    step: { stage?: string; outcome?: 'succeeded' | 'failed'; error?: object; ticketId?: number; action?: string },
  ): Promise<void> {
    await db.query(
      `UPDATE job_items SET stage = ?, outcome = ?, error = ?, finished_at = IF(? IS NULL, NULL, NOW(3)),
         ticket_id = COALESCE(?, ticket_id), action = COALESCE(?, action)
       WHERE job_id = ? AND position = ?`,
      [
        step.stage ?? null,
        step.outcome ?? null,
        step.error ? JSON.stringify(step.error) : null,
        step.outcome ?? null,
        step.ticketId ?? null,
        step.action ?? null,
        jobId,
        position,
      ],
    );
  }

  /** Ends the job, while it is still this claim's (with why, when it failed as a whole). */
  async finish(job: ClaimedJob, status: JobStatus, error?: object): Promise<void> {
    await this.database.query(
      `UPDATE jobs SET status = ?, error = ?, finished_at = NOW(3), lease_owner = NULL, lease_until = NULL
       WHERE id = ? AND lease_owner = ? AND lease_epoch = ?`,
      [status, error ? JSON.stringify(error) : null, job.id, job.owner, job.epoch],
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
  async results(jobId: number, afterPosition: number, limit: number): Promise<JobResult[]> {
    const rows = (await this.database.query(
      `SELECT position, ticket_id, external_id, action, outcome, error FROM job_items
        WHERE job_id = ? AND position > ? AND outcome IS NOT NULL ORDER BY position LIMIT ?`,
      [jobId, afterPosition, limit + 1],
    )) as Array<{
      position: number;
      ticket_id: string | number | null;
      external_id: string | null;
      action: JobResult['action'];
      outcome: 'succeeded' | 'failed';
      error: string | null;
    }>;
    return rows.map((row) => ({
      position: Number(row.position),
      ticketId: row.ticket_id === null ? null : Number(row.ticket_id),
      externalId: row.external_id,
      action: row.action,
      outcome: row.outcome,
      error: row.error === null ? null : (JSON.parse(row.error) as Record<string, unknown>),
    }));
  }

  /**
   * Deletes the jobs finished longer ago than the retention, and imports whose body stopped arriving a day ago (their
   * replica stopped while receiving it), each job's items first in batches (a job may have millions, more than one
   * statement deletes within its time limit); answers how many jobs.
   */
  async purge(retentionMs: number): Promise<number> {
    let purged = 0;
    for (;;) {
      const expired = (await this.database.query(
        `SELECT id FROM jobs WHERE finished_at < NOW(3) - INTERVAL ? MICROSECOND
         UNION ALL SELECT id FROM jobs WHERE status = 'receiving' AND created_at < NOW(3) - INTERVAL 1 DAY LIMIT 100`,
        [retentionMs * 1000],
      )) as Array<{ id: string | number }>;
      for (const { id } of expired) await this.drop(Number(id));
      purged += expired.length;
      if (expired.length < 100) return purged;
    }
  }
}
