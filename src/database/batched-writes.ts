import { currentRequestContext, type RequestContext, runInRequestContext } from '../common/context/request-context.js';
import { EndOfRound } from './end-of-round.js';
import { earliestDeadline } from './request-deadline.js';
import { isCommitOutcomeUnknown } from './transaction.js';

interface Pending<Job, Result> {
  job: Job;
  context: RequestContext | undefined;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/**
 * Writes of many requests in one transaction: the jobs handed in while the event loop handles one round of I/O are
 * written together right after it, up to `maxJobs` a transaction. Under load one transaction, with its two round
 * trips (three on MySQL) and its one COMMIT, then carries the writes of every request that arrived in that round; a
 * lone request waits for nothing. Every job's result is committed when its promise resolves.
 *
 * The jobs of a transaction share one deadline, the earliest of theirs: none of them is answered 503 while the
 * others commit. When the transaction fails before COMMIT went out (one job's conflict or bad value, say), every job
 * is written again alone, so that each gets its own outcome; when the connection failed with COMMIT out, nobody
 * knows whether it committed, and every job gets that error, as a lone write would.
 */
export class BatchedWrites<Job, Result> {
  private pending: Array<Pending<Job, Result>> = [];
  private readonly endOfRound = new EndOfRound(() => this.flush());

  constructor(
    /** DB_QUERY_TIMEOUT_MS (Database.budgetMs): the deadline of a job whose request's had not started. */
    private readonly budgetMs: number,
    /** Writes the jobs in one transaction (Database.transaction): their results, in order. */
    private readonly writeAll: (jobs: Job[]) => Promise<Result[]>,
    private readonly maxJobs = 50,
  ) {}

  write(job: Job): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.pending.push({ job, context: currentRequestContext(), resolve, reject });
      this.endOfRound.request();
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    for (let start = 0; start < batch.length; start += this.maxJobs) void this.run(batch.slice(start, start + this.maxJobs));
  }

  private async run(batch: Array<Pending<Job, Result>>): Promise<void> {
    try {
      const results = await this.together(batch);
      batch.forEach((pending, i) => pending.resolve(results[i]));
    } catch (error) {
      if (batch.length === 1 || isCommitOutcomeUnknown(error)) for (const pending of batch) pending.reject(error);
      else for (const pending of batch) void this.run([pending]);
    }
  }

  /**
   * The jobs' transaction, within the earliest of their requests' deadlines, which becomes the deadline of those
   * whose deadline had not started. A lone job runs in its request's context; jobs of no request have no deadline.
   */
  private together(batch: Array<Pending<Job, Result>>): Promise<Result[]> {
    const jobs = batch.map((pending) => pending.job);
    const requests = batch.flatMap((pending) => (pending.context && pending.context.deadline !== null ? [pending.context] : []));
    const deadline = earliestDeadline(
      this.budgetMs,
      requests.map((request) => request.deadline ?? undefined),
    );
    for (const request of requests) request.deadline ??= deadline;
    const context = batch.length === 1 ? batch[0].context : deadline && { deadline };
    return context ? runInRequestContext(context, () => this.writeAll(jobs)) : this.writeAll(jobs);
  }
}
