import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { type KeysetPage, type KeysetPageRequest, keysetPage, keysetSql } from '../tickets/query/keyset-page.js';
import { assertTicketExists } from '../tickets/ticket-not-found.js';
import type { HistoryEntryResponse } from './dto/history-entry-response.dto.js';
import type { HistoryAction } from './history-action.js';
import type { FieldChange } from './ticket-changes.js';
import { WithinRequestDeadline } from '../database/request-deadline.js';
import type { Queryable } from '../database/statement-batch.js';

/** An entry to record: everything but the id the database assigns. */
export type HistoryEntry = Omit<HistoryEntryResponse, 'id'>;

interface HistoryRow {
  id: string | number;
  ticket_id: string | number;
  occurred_at: Date;
  actor: string | null;
  action: HistoryAction;
  changes: string;
}

/** A ticket's audit trail: recorded in each write's own transaction, read oldest first. */
@Injectable()
export class HistoryService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** In the caller's transaction, so the entry commits or rolls back with the write it describes. */
  async record(manager: Queryable, entry: HistoryEntry): Promise<void> {
    await manager.query('INSERT INTO ticket_history (ticket_id, occurred_at, actor, action, changes) VALUES (?, ?, ?, ?, ?)', [
      entry.ticketId,
      entry.occurredAt,
      entry.actor,
      entry.action,
      JSON.stringify(entry.changes),
    ]);
  }

  @WithinRequestDeadline()
  async list(ticketId: string, page: KeysetPageRequest): Promise<KeysetPage<HistoryEntryResponse>> {
    const range = keysetSql(page);
    const rows: HistoryRow[] = await this.dataSource.query(
      `SELECT id, ticket_id, occurred_at, actor, action, changes FROM ticket_history WHERE ticket_id = ?${range.sql}`,
      [ticketId, ...range.params],
    );
    // A ticket's rows prove it exists; only an empty page needs the extra look.
    if (rows.length === 0) await assertTicketExists(this.dataSource, ticketId);
    return keysetPage(rows.map(historyFromRow), page);
  }
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
