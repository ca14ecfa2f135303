import { ServiceUnavailableException } from '@nestjs/common';
import { currentRequestContext, type Deadline, runInRequestContext } from '../common/context/request-context.js';

/**
 * A request's database work is bounded by DB_QUERY_TIMEOUT_MS as a whole: when the database is slow or unreachable
 * in a way no driver timeout notices (a connection that waits in the pool queue, several statements that are each
 * just under the per-query timeout), the client gets a 503 at the deadline instead of a hanging request, and
 * DatabaseTimeoutsSubscriber stops the abandoned work at its next statement. The deadline starts with the first
 * piece of database work of a request and is kept in its request context; outside a request (the outbox relay,
 * start-up) there is none.
 */
let budgetMs = 0;

/** DB_QUERY_TIMEOUT_MS; 0 turns the deadline off. Set once by DatabaseModule. */
export function setRequestDeadlineBudget(ms: number): void {
  budgetMs = ms;
}

/**
 * Runs `work` bounded by the request's deadline: past it, the answer is the 503 (the work is left to be stopped);
 * but while a COMMIT is out (see untilCommitted), the answer waits for it.
 */
export function withinRequestDeadline<T>(work: () => Promise<T>): Promise<T> {
  const deadline = requestDeadline();
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

/** The request's deadline, started now if its database work starts now; none outside a request or when off. */
export function requestDeadline(): Deadline | undefined {
  const context = currentRequestContext();
  if (budgetMs <= 0 || !context) return undefined;
  return (context.deadline ??= { at: Date.now() + budgetMs, budgetMs });
}

/**
 * The deadline of database work shared by several requests (their deadlines, undefined for one that has not
 * started): the earliest, counting one starting now for those; none for no request, or when deadlines are off.
 */
export function earliestDeadline(deadlines: ReadonlyArray<Deadline | undefined>): Deadline | undefined {
  if (budgetMs <= 0 || deadlines.length === 0) return undefined;
  let earliest: Deadline | undefined = deadlines.includes(undefined) ? { at: Date.now() + budgetMs, budgetMs } : undefined;
  for (const deadline of deadlines) if (deadline && (!earliest || deadline.at < earliest.at)) earliest = deadline;
  return earliest;
}

/** Method decorator: each call of the method runs within the request's deadline (see withinRequestDeadline). */
export function WithinRequestDeadline(): MethodDecorator {
  return (_target, _name, descriptor: PropertyDescriptor) => {
    const method = descriptor.value as (...args: unknown[]) => Promise<unknown>;
    descriptor.value = function (this: unknown, ...args: unknown[]) {
      return withinRequestDeadline(() => method.apply(this, args));
    };
  };
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

/** Runs `work` free of the request's deadline, e.g. the clean-up of a request that ran past it. */
export function freeOfRequestDeadline<T>(work: () => T): T {
  const context = currentRequestContext();
  return context?.deadline ? runInRequestContext({ requestId: context.requestId }, work) : work();
}

/**
 * How long the database may run a statement sent now: what is left of the request's deadline, or outside a
 * request DB_QUERY_TIMEOUT_MS; undefined when these bounds are off.
 */
export function statementTimeLimitMs(): number | undefined {
  if (budgetMs <= 0) return undefined;
  const deadline = currentRequestContext()?.deadline;
  return deadline ? deadline.at - Date.now() : budgetMs;
}

/** The 503 of a statement the database stopped at its time limit (see statementTimeLimitMs). */
export function statementTimedOut(): ServiceUnavailableException {
  return databaseTimeout(currentRequestContext()?.deadline?.budgetMs ?? budgetMs);
}

/** Throws the 503 of a request whose deadline has passed; outside a request (the outbox relay) never. */
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
