import { Injectable } from '@nestjs/common';
import type { Transaction } from '../database/transaction.js';

/**
 * What another concern does when a ticket is deleted, in the delete's transaction once the ticket's row is gone
 * (work for after the commit, e.g. removing files, goes to transaction.afterCommit).
 */
export type TicketDeletionHook = (transaction: Transaction, ticketId: string) => Promise<void>;

/**
 * Concerns that keep rows of a ticket without a foreign key to it (attachments) register here, so that the ticket's
 * delete removes them without tickets/ knowing them.
 */
@Injectable()
export class TicketDeletionHooks {
  private readonly hooks: TicketDeletionHook[] = [];

  register(hook: TicketDeletionHook): void {
    this.hooks.push(hook);
  }

  /** Runs every hook in the delete's transaction. */
  async run(transaction: Transaction, ticketId: string): Promise<void> {
    for (const hook of this.hooks) await hook(transaction, ticketId);
  }
}
