import { NotFoundException } from '@nestjs/common';
import type { Queryable } from '../database/statement-batch.js';
import { ticketExists } from './tickets.repository.js';

/** The one message for an unknown ticket, on the ticket and on its sub-resources alike (decision 1). */
export function ticketNotFound(id: string | number): NotFoundException {
  return new NotFoundException(`Ticket not found with id: ${id}`);
}

/**
 * Throws 404 unless the ticket exists. With `lock`, the ticket's row stays locked until the caller's transaction
 * ends, which orders a sub-resource's write (a comment) with the ticket's own updates and with its delete.
 */
export async function assertTicketExists(db: Queryable, id: string, lock = false): Promise<void> {
  if (!(await ticketExists(db, id, lock))) throw ticketNotFound(id);
}
