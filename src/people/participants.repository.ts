import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { Queryable } from '../database/statement-batch.js';
import { listedByTicket, type RowsRead, readTogether } from '../database/rows-read.js';

/** The participants of each of these tickets (at least one), in order (a ticket without any is absent). */
export function participantsRead(ticketIds: readonly number[]): RowsRead<Map<number, string[]>> {
  return {
    sql: 'SELECT ticket_id, email FROM ticket_participants WHERE ticket_id IN (?) ORDER BY ticket_id, position',
    params: [ticketIds],
    from: (rows) => listedByTicket(rows as Array<{ ticket_id: string | number; email: string }>, (row) => row.email),
  };
}

/** `ticket_participants`: the addresses a ticket lists as participants (v2's ccEmails), in canonical form and in order. */
@Injectable()
export class ParticipantsRepository {
  constructor(private readonly database: Database) {}

  /** The participants of each of these tickets (a ticket without any is absent). */
  async of(ticketIds: readonly number[], manager: Queryable = this.database): Promise<Map<number, string[]>> {
    if (ticketIds.length === 0) return new Map();
    const [listed] = await readTogether(manager, participantsRead(ticketIds));
    return listed;
  }

  /**
   * Makes `emails` the ticket's participants in place of `before` (read in the caller's transaction after the ticket's
   * row was locked), in that transaction. A ticket without any is not asked to delete: a DELETE that finds no row
   * still locks the gap where it looked (for a new ticket, the end of the table), and two writes inserting into one gap
   * then deadlock.
   */
  async replace(transaction: Queryable, ticketId: number | string, before: readonly string[], emails: readonly string[]): Promise<void> {
    if (before.length > 0) await transaction.query('DELETE FROM ticket_participants WHERE ticket_id = ?', [ticketId]);
    if (emails.length === 0) return;
    await transaction.query('INSERT INTO ticket_participants (ticket_id, email, position) VALUES ?', [
      emails.map((email, position) => [ticketId, email, position]),
    ]);
  }
}
