import { AsyncLocalStorage } from 'node:async_hooks';

/** What code running for a request may need to know of it without being handed the request. */
export interface RequestContext {
  /** The request's id (X-Request-Id); absent for work that is not a request's. */
  readonly requestId?: string;
  /** When the request's database work must be done (see request-deadline.ts); null for work free of it. */
  deadline?: Deadline | null;
}

export interface Deadline {
  at: number;
  budgetMs: number;
  /** A COMMIT is out: the request waits for its answer, deadline or not (see untilCommitted). */
  committing?: boolean;
}

/**
 * The one AsyncLocalStorage of the service. Every store in a process makes Node track every promise of it, so
 * the request id (for log lines) and the database deadline share this one rather than keeping one each.
 */
const contexts = new AsyncLocalStorage<RequestContext>();

export function runInRequestContext<T>(context: RequestContext, work: () => T): T {
  return contexts.run(context, work);
}

export function currentRequestContext(): RequestContext | undefined {
  return contexts.getStore();
}

/** Runs `work`, and what it schedules, outside any request's context (work shared by several requests). */
export function outsideRequestContext<T>(work: () => T): T {
  return contexts.exit(work);
}
