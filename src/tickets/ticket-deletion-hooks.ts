import { Injectable } from '@nestjs/common';
import type { Transaction } from '../database/transaction.js';

/**
 * What another concern does when a ticket is deleted, in the delete's transaction once the ticket's row is gone;
 * it may answer work to do after the commit (e.g. removing files).
 */
export type TicketDeletionHook = (transaction: Transaction, ticketId: string) => Promise<(() => Promise<void>) | void>;

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

  /** Runs every hook in the delete's transaction; answers what is to be done after its commit. */
  async run(transaction: Transaction, ticketId: string): Promise<() => Promise<void>> {
    const after: Array<() => Promise<void>> = [];
    for (const hook of this.hooks) {
      const next = await hook(transaction, ticketId);
      if (next) after.push(next);
    }
    return async () => {
      for (const next of after) await next();
    };
  }
}
