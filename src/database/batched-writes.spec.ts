import { currentRequestContext, type RequestContext, runInRequestContext } from '../common/context/request-context.js';
import { BatchedWrites } from './batched-writes.js';
import { inTransaction, isCommitOutcomeUnknown } from './transaction.js';

const BUDGET_MS = 1_000;

describe('BatchedWrites', () => {
  it('writes the jobs handed in during one round of I/O in one transaction, each getting its own result', async () => {
    const transactions: number[][] = [];
    const writes = new BatchedWrites<number, string>(
      BUDGET_MS,
      async (jobs) => {
        transactions.push(jobs);
        return jobs.map((job) => `ticket ${job}`);
      },
      3,
    );
    const results = await Promise.all([1, 2, 3, 4].map((job) => writes.write(job)));
    expect(results).toEqual(['ticket 1', 'ticket 2', 'ticket 3', 'ticket 4']);
    expect(transactions).toEqual([[1, 2, 3], [4]]);
    expect(await writes.write(5)).toBe('ticket 5');
    expect(transactions.at(-1)).toEqual([5]);
  });

  it('writes each job again alone when their transaction failed, so that only the bad one fails', async () => {
    const transactions: number[][] = [];
    const writes = new BatchedWrites<number, number>(BUDGET_MS, async (jobs) => {
      transactions.push(jobs);
      if (jobs.includes(2)) throw new Error('Duplicate entry');
      return jobs;
    });
    const outcomes = await Promise.allSettled([1, 2, 3].map((job) => writes.write(job)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(transactions).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('writes nothing again when the connection failed with COMMIT out: every job gets the error', async () => {
    let calls = 0;
    const unknown = await commitLostError();
    expect(isCommitOutcomeUnknown(unknown)).toBe(true);
    const writes = new BatchedWrites<number, number>(BUDGET_MS, async () => {
      calls++;
      throw unknown;
    });
    const outcomes = await Promise.allSettled([1, 2].map((job) => writes.write(job)));
    expect(outcomes).toEqual([
      { status: 'rejected', reason: unknown },
      { status: 'rejected', reason: unknown },
    ]);
    expect(calls).toBe(1);
  });

  it('runs the jobs within the earliest of their deadlines, which becomes the deadline of those that had none', async () => {
    const early = { at: Date.now() + 200, budgetMs: 1_000 };
    const seen: unknown[] = [];
    const writes = new BatchedWrites<number, number>(BUDGET_MS, async (jobs) => {
      seen.push(currentRequestContext()?.deadline);
      return jobs;
    });
    const fresh: RequestContext = { requestId: 'b' };
    await Promise.all([
      runInRequestContext({ requestId: 'a', deadline: early }, () => writes.write(1)),
      runInRequestContext(fresh, () => writes.write(2)),
    ]);
    expect(seen).toEqual([early]);
    expect(fresh.deadline).toBe(early);
  });

  it('gives jobs of no request no deadline', async () => {
    const seen: unknown[] = [];
    const writes = new BatchedWrites<number, number>(BUDGET_MS, async (jobs) => {
      seen.push(currentRequestContext());
      return jobs;
    });
    await Promise.all([writes.write(1), writes.write(2)]);
    await writes.write(3);
    expect(seen).toEqual([undefined, undefined]);
  });
});

/** The error of a transaction whose COMMIT went out and never got its answer. */
async function commitLostError(): Promise<unknown> {
  const runner = {
    query: async (sql: string) => {
      if (sql === 'COMMIT') throw new Error('Connection lost: The server closed the connection.');
      return [{}, {}];
    },
    release: async () => undefined,
  };
  return inTransaction(
    { createQueryRunner: () => runner, query: async () => [{ version: '10.11.6-MariaDB' }] } as never,
    async (transaction) => transaction.query('INSERT INTO t VALUES (1)'),
  ).catch((error: unknown) => error);
}
