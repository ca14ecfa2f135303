import { ConflictException, NotFoundException } from '@nestjs/common';
import type { Queryable } from '../database/statement-batch.js';
import { ticketExists } from './tickets.repository.js';
import { finalMergeTarget, mergedInto } from './merges/merges.repository.js';

/** The one message for an unknown ticket, on the ticket and on its sub-resources alike (decision 1). */
export function ticketNotFound(id: string | number): NotFoundException {
  return new NotFoundException(`Ticket not found with id: ${id}`);
}

/**
 * Throws 404 unless the ticket exists. With `lock`, the ticket's row stays locked until the caller's transaction
 * ends, which orders a sub-resource's write (a comment) with the ticket's own updates and with its delete; and, as that
 * is a write, a merged ticket refuses it (409 naming its target).
 */
export async function assertTicketExists(db: Queryable, id: string, lock = false): Promise<void> {
  if (!(await ticketExists(db, id, lock))) throw ticketNotFound(id);
  if (lock) await assertNotMerged(db, id);
}

/** A merged ticket takes no write (docs/api.md#merge): 409 naming the ticket it was merged into. Under its row lock. */
export async function assertNotMerged(db: Queryable, id: string | number): Promise<void> {
  if ((await mergedInto(db, Number(id))) === undefined) return;
  // Where its conversation goes on: the end of the chain, when its target was merged in turn.
  const target = await finalMergeTarget(db, Number(id));
  throw new ConflictException(`Ticket ${id} is merged into ticket ${target}: write to ticket ${target} instead`);
}
