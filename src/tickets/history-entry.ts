import type { Queryable } from '../database/statement-batch.js';
import type { HistoryAction } from './history-action.js';
import type { FieldChange } from './ticket-changes.js';

/** An entry of a ticket's audit trail, as a write records it (the database assigns its id). */
export interface HistoryEntry {
  ticketId: number;
  occurredAt: Date;
  /** The subject of the request's bearer token; null when authentication is off or the request is anonymous. */
  actor: string | null;
  action: HistoryAction;
  changes: Record<string, FieldChange>;
}

/**
 * Records the entry in the write's own transaction (`manager`), so it commits or rolls back with the write it
 * describes. The trail is read by history/.
 */
export async function recordHistory(manager: Queryable, entry: HistoryEntry): Promise<void> {
  await manager.query('INSERT INTO ticket_history (ticket_id, occurred_at, actor, action, changes) VALUES (?, ?, ?, ?, ?)', [
    entry.ticketId,
    entry.occurredAt,
    entry.actor,
    entry.action,
    JSON.stringify(entry.changes),
  ]);
}
