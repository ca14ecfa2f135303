import { Injectable } from '@nestjs/common';
import { DESK, type Viewer } from '../common/context/viewer.js';
import { hiddenFrom, seenBy } from '../people/visibility.js';
import type { Readable } from 'node:stream';
import { Database } from '../database/database.js';
import type { HistoryAction } from '../tickets/history-action.js';
import type { FieldChange } from '../tickets/ticket-changes.js';
import { type KeysetPageRequest, keysetSql } from '../common/paging/keyset-page.js';
import type { HistoryEntryResponse } from './dto/history-entry-response.dto.js';

interface HistoryRow {
  id: string | number;
  ticket_id: string | number;
  occurred_at: Date;
  actor: string | null;
  action: HistoryAction;
  changes: string;
}

const SELECT_HISTORY = 'SELECT id, ticket_id, occurred_at, actor, action, changes FROM ticket_history WHERE ticket_id = ?';

/** The entries the viewer sees of the ticket (a requester: none of internal comments, see src/people/visibility.ts). */
const selectHistory = (viewer: Viewer) => `${SELECT_HISTORY}${hiddenFrom(viewer, 'history')}`;

/** `ticket_history`, a ticket's audit trail, read oldest first (the writes it describes record it: TicketHistoryRepository). */
@Injectable()
export class HistoryRepository {
  constructor(private readonly database: Database) {}

  /** The ticket's entries of the page's id range (one more than its limit, see keysetSql). */
  async page(ticketId: string, page: KeysetPageRequest, viewer: Viewer = DESK): Promise<HistoryEntryResponse[]> {
    const range = keysetSql(page);
    const rows: HistoryRow[] = await this.database.query(`${selectHistory(viewer)}${range.sql}`, [ticketId, ...range.params]);
    // Entries are filtered by the viewer in SQL; what a requester may not see of a ticket is taken out of each's changes.
    return rows.map(historyFromRow).map((entry) => ({ ...entry, changes: seenBy(viewer, entry.changes) }));
  }

  /** Every entry of the ticket (an unpaged `page`), oldest first, as a stream of rows (v1HistoryJson writes each). */
  stream(ticketId: string, page: KeysetPageRequest, viewer: Viewer = DESK): Promise<Readable> {
    const range = keysetSql(page);
    return this.database.stream(`${selectHistory(viewer)}${range.sql}`, [ticketId, ...range.params]);
  }
}

/**
 * What v2 tickets have and v1's know nothing of: a change of them is left out of a v1 entry (how many comments an
 * import brought among them, which a requester must not read either: see people/visibility.ts).
 */
const v2Only = (part: string) => part === 'ccEmails' || part === 'tags' || part === 'importedComments' || part.startsWith('fields.');

/** An entry as v1 shows it: without changes of what v1 knows nothing of (participants, tags, custom fields). */
export function v1HistoryEntry(entry: HistoryEntryResponse): HistoryEntryResponse {
  if (!Object.keys(entry.changes).some(v2Only)) return entry;
  return { ...entry, changes: Object.fromEntries(Object.entries(entry.changes).filter(([part]) => !v2Only(part))) };
}

/** An entry's JSON as v1's streamed list writes it in its array, as res.json would (see v1HistoryEntry, sendJsonArray). */
export function v1HistoryJson(row: HistoryRow): string {
  return JSON.stringify(v1HistoryEntry(historyFromRow(row)));
}

function historyFromRow(row: HistoryRow): HistoryEntryResponse {
  return {
    id: Number(row.id),
    ticketId: Number(row.ticket_id),
    occurredAt: row.occurred_at,
    actor: row.actor,
    action: row.action,
    changes: JSON.parse(row.changes) as Record<string, FieldChange>,
  };
}
