import type { Queryable } from '../database/statement-batch.js';
import type { Transaction } from '../database/transaction.js';
import type { TicketResponse } from './dto/ticket-response.dto.js';

/** What v2 ticket bodies carry of a ticket's SLA clocks when SLA is on. */
export interface TicketSlaSummary {
  /** Whether any clock of the ticket has breached, in any cycle. */
  breached: boolean;
  /** The earliest breach time of its running clocks; null when none runs. */
  nextBreachTime: Date | null;
}

/** A comment as far as clocks care: a public one by someone other than the requester is a response. */
export interface CommentForClocks {
  author: string | null;
  visibility: string;
}

/**
 * The clocks that run beside tickets (SLA, src/sla/), told of every write in its transaction. Defined here and
 * provided by the clocks' own module, so that tickets and comments do not depend on it; with SLA off each call
 * returns at once without a statement.
 */
export interface TicketClocks {
  created(manager: Queryable, ticket: TicketResponse, now: Date): Promise<void>;
  /** Runs while the ticket's row is locked by the update. */
  updated(transaction: Transaction, before: TicketResponse, after: TicketResponse, now: Date): Promise<void>;
  /** Runs while the ticket's row is locked by the comment's write. */
  commented(transaction: Transaction, ticketId: string, comment: CommentForClocks, now: Date): Promise<void>;
  /** The summaries of these tickets for v2 bodies; undefined when SLA is off (and then the bodies carry none). */
  summaries(ids: readonly number[]): Promise<Map<number, TicketSlaSummary>> | undefined;
}

export const TICKET_CLOCKS = Symbol('TicketClocks');
