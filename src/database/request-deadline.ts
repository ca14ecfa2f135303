import { ServiceUnavailableException } from '@nestjs/common';
import { currentRequestContext, runInRequestContext } from '../common/context/request-context.js';

/** Runs `work` (and everything it starts) under a deadline that the request's database work must meet. */
export function runWithDeadline<T>(budgetMs: number, work: () => T): T {
  const deadline = { at: Date.now() + budgetMs, budgetMs };
  const context = currentRequestContext();
  if (!context) return runInRequestContext({ deadline }, work);
  // Inside a request the context is the request's own: the deadline joins it rather than nesting another.
  context.deadline = deadline;
  return work();
}

/** Throws the 503 of a request whose deadline has passed; outside a request (the outbox relay) never. */
export function assertDeadlineNotPassed(): void {
  const deadline = currentRequestContext()?.deadline;
  if (deadline && Date.now() >= deadline.at) throw databaseTimeout(deadline.budgetMs);
}

export function databaseTimeout(budgetMs: number): ServiceUnavailableException {
  return new ServiceUnavailableException(`Database did not answer within ${budgetMs} ms, try again later`);
}
