import type { HistoryAction } from './history-action.js';
import type { FieldChange } from './ticket-changes.js';

/**
 * An entry of a ticket's audit trail, as a write records it (the database assigns its id), in the write's own
 * transaction (TicketHistoryRepository.record). The trail is read by history/.
 */
export interface HistoryEntry {
  ticketId: number;
  occurredAt: Date;
  /** The subject of the request's bearer token; null when authentication is off or the request is anonymous. */
  actor: string | null;
  action: HistoryAction;
  changes: Record<string, FieldChange>;
}
