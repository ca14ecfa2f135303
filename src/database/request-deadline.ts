import { ServiceUnavailableException } from '@nestjs/common';
import { currentRequestContext, type Deadline, runInRequestContext } from '../common/context/request-context.js';

/**
 * A request's database work is bounded by DB_QUERY_TIMEOUT_MS (the budget, which Database holds and hands to these
 * functions) as a whole: when the database is slow or unreachable in a way no driver timeout notices (a connection
 * that waits in the pool queue, several statements that are each just under the per-query timeout), the client gets
 * a 503 at the deadline instead of a hanging request, and the abandoned work is stopped (see Database). The deadline
 * starts with the first statement of a request and is kept in its request context; outside a request (background
 * workers, start-up) there is none, and each statement is bounded by the budget alone. A budget of 0 turns it off.
 */

/** The request's deadline, started now if its database work starts now; none outside a request or when off. */
export function requestDeadline(budgetMs: number): Deadline | undefined {
  const context = currentRequestContext();
  if (budgetMs <= 0 || !context || context.deadline === null) return undefined;
  return (context.deadline ??= { at: Date.now() + budgetMs, budgetMs });
}

/**
 * Runs `work` bounded by the request's deadline (started now if it has not): past it, the answer is the 503 (the
 * work is left to be stopped); but while a COMMIT is out (see untilCommitted), the answer waits for it.
 */
export function withinDeadline<T>(budgetMs: number, work: () => Promise<T>): Promise<T> {
  const deadline = requestDeadline(budgetMs);
  if (!deadline) return work();
  const remaining = deadline.at - Date.now();
  if (remaining <= 0) return Promise.reject(databaseTimeout(deadline.budgetMs));
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      if (!deadline.committing) reject(databaseTimeout(deadline.budgetMs));
    }, remaining);
    work().then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * The deadline of database work shared by several requests (their deadlines, undefined for one that has not
 * started): the earliest, counting one starting now for those; none for no request, or when deadlines are off.
 */
export function earliestDeadline(budgetMs: number, deadlines: ReadonlyArray<Deadline | undefined>): Deadline | undefined {
  if (budgetMs <= 0 || deadlines.length === 0) return undefined;
  let earliest: Deadline | undefined = deadlines.includes(undefined) ? { at: Date.now() + budgetMs, budgetMs } : undefined;
  for (const deadline of deadlines) if (deadline && (!earliest || deadline.at < earliest.at)) earliest = deadline;
  return earliest;
}

/**
 * Sends a COMMIT (`commit`, which must not go out past the deadline: DatabaseTimeoutsSubscriber) and has the request
 * wait for its answer even when the deadline passes meanwhile: once COMMIT is out only its answer says whether the
 * write happened, and a 503 for a write that then commits would tell the client it did not. The wait is bounded
 * by the statement timeout, as every statement's.
 */
export async function untilCommitted<T>(commit: () => Promise<T>): Promise<T> {
  const deadline = currentRequestContext()?.deadline;
  if (!deadline) return commit();
  deadline.committing = true;
  try {
    return await commit();
  } finally {
    deadline.committing = false;
  }
}

/**
 * Runs `work` free of the request's deadline, its statements each bounded by the budget alone, as a background
 * worker's are: the one way out, for database work that follows or interleaves a wait the deadline must not count
 * (an upload's transaction, which lasts as long as its body; each read of a download, a long wait or a stream), or
 * that must happen past it (the clean-up of a request that ran past it).
 */
export function freeOfRequestDeadline<T>(work: () => T): T {
  const context = currentRequestContext();
  return context ? runInRequestContext({ requestId: context.requestId, deadline: null }, work) : work();
}

/**
 * How long the database may run a statement sent now: what is left of the request's deadline, or outside a
 * request the budget; undefined when these bounds are off.
 */
export function statementTimeLimitMs(budgetMs: number): number | undefined {
  if (budgetMs <= 0) return undefined;
  const deadline = currentRequestContext()?.deadline;
  return deadline ? deadline.at - Date.now() : budgetMs;
}

/** The 503 of a statement the database stopped at its time limit (see statementTimeLimitMs). */
export function statementTimedOut(budgetMs: number): ServiceUnavailableException {
  return databaseTimeout(currentRequestContext()?.deadline?.budgetMs ?? budgetMs);
}

/** Throws the 503 of a request whose deadline has passed; outside a request (a background worker) never. */
export function assertDeadlineNotPassed(): void {
  const deadline = currentRequestContext()?.deadline;
  if (deadline && Date.now() >= deadline.at) throw databaseTimeout(deadline.budgetMs);
}

const PAST_DEADLINE = Symbol('pastDatabaseDeadline');

export function databaseTimeout(budget: number): ServiceUnavailableException {
  return Object.assign(new ServiceUnavailableException(`Database did not answer within ${budget} ms, try again later`), {
    [PAST_DEADLINE]: true,
  });
}

/** Whether `error` is the 503 of a request past its deadline, whose work may still be running. */
export function isPastDeadline(error: unknown): boolean {
  return typeof error === 'object' && error !== null && PAST_DEADLINE in error;
}
