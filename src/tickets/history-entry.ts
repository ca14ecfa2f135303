import type { HistoryAction } from './history-action.js';
import type { TicketChanges } from './ticket-changes.js';

/** What an entry records, by its action: the fields a create or update changed, the comment or attachment it added or deleted. */
export type HistoryChange =
  | { action: HistoryAction.CREATED | HistoryAction.UPDATED; changes: TicketChanges }
  | { action: HistoryAction.COMMENTED; changes: { comment: { from: null; to: number } } }
  | { action: HistoryAction.ATTACHED; changes: { attachment: { from: null; to: number } } }
  | { action: HistoryAction.DETACHED; changes: { attachment: { from: number; to: null } } }
  | { action: HistoryAction.LINKED; changes: { link: { from: null; to: object } } }
  | { action: HistoryAction.UNLINKED; changes: { link: { from: object; to: null } } }
  // A source's entry: its status (and resolution time) as the merge closed it or the unmerge restored it, and its target.
  // The target's: the sources merged into it or taken out again, and the participants it gained or lost.
  | {
      action: HistoryAction.MERGED | HistoryAction.UNMERGED;
      changes: TicketChanges & {
        mergedInto?: { from: number | null; to: number | null };
        sources?: { from: number[] | null; to: number[] | null };
        ccEmails?: { from: string[]; to: string[] };
      };
    }
  // A ticket created or updated from an import's line: what changed, as a create's or update's, and how many of its
  // comments the import has brought in all.
  | {
      action: HistoryAction.IMPORTED;
      changes: TicketChanges & {
        externalId?: { from: null; to: string };
        ccEmails?: { from: string[]; to: string[] };
        tags?: { from: string[]; to: string[] };
        importedComments?: { from: number; to: number };
      } & Record<`fields.${string}`, unknown>;
    };

/** What every entry holds besides its action and changes. */
export interface HistoryEntryHeader {
  ticketId: number;
  occurredAt: Date;
  /** The subject of the request's bearer token; null when authentication is off or the request is anonymous. */
  actor: string | null;
}

/**
 * An entry of a ticket's audit trail, as a write records it (the database assigns its id), in the write's own
 * transaction (TicketHistoryRepository.record). The trail is read by history/ and, to replay writes, by sla/.
 */
export type HistoryEntry = HistoryEntryHeader & HistoryChange;

/** An entry's action and changes as `ticket_history` holds them (its JSON written by TicketHistoryRepository.record). */
export function storedHistoryChange(action: string, changes: string): HistoryChange {
  return { action, changes: JSON.parse(changes) } as HistoryChange;
}
