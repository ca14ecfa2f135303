import { AsyncLocalStorage } from 'node:async_hooks';
import { ServiceUnavailableException } from '@nestjs/common';

interface Deadline {
  at: number;
  budgetMs: number;
}

const deadlines = new AsyncLocalStorage<Deadline>();

/** Runs `work` (and everything it starts) under a deadline that the request's database work must meet. */
export function runWithDeadline<T>(budgetMs: number, work: () => T): T {
  return deadlines.run({ at: Date.now() + budgetMs, budgetMs }, work);
}

/** Throws the 503 of a request whose deadline has passed; outside a request (the outbox relay) never. */
export function assertDeadlineNotPassed(): void {
  const deadline = deadlines.getStore();
  if (deadline && Date.now() >= deadline.at) throw databaseTimeout(deadline.budgetMs);
}

export function databaseTimeout(budgetMs: number): ServiceUnavailableException {
  return new ServiceUnavailableException(`Database did not answer within ${budgetMs} ms, try again later`);
}
