import { Injectable } from '@nestjs/common';
import type { Queryable } from '../database/statement-batch.js';
import type { HistoryEntry } from './history-entry.js';

/**
 * The write side of `ticket_history`, a ticket's audit trail: every write of a ticket (tickets/, comments/) records
 * its entry here; history/ reads the trail.
 */
@Injectable()
export class TicketHistoryRepository {
  /**
   * Records the entry in the write's own transaction (`manager`), so it commits or rolls back with the write it
   * describes.
   */
  async record(manager: Queryable, entry: HistoryEntry): Promise<void> {
    await manager.query('INSERT INTO ticket_history (ticket_id, occurred_at, actor, action, changes) VALUES (?, ?, ?, ?, ?)', [
      entry.ticketId,
      entry.occurredAt,
      entry.actor,
      entry.action,
      JSON.stringify(entry.changes),
    ]);
  }
}
