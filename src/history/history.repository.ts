import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Queryable } from '../database/statement-batch.js';
import type { HistoryAction } from '../tickets/history-action.js';
import type { HistoryEntry } from '../tickets/history-entry.js';
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

/** `ticket_history`, a ticket's audit trail: written by the writes it describes, read oldest first. */
@Injectable()
export class HistoryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

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

  /** The ticket's entries of the page's id range (one more than its limit, see keysetSql). */
  async page(ticketId: string, page: KeysetPageRequest): Promise<HistoryEntryResponse[]> {
    const range = keysetSql(page);
    const rows: HistoryRow[] = await this.dataSource.query(
      `SELECT id, ticket_id, occurred_at, actor, action, changes FROM ticket_history WHERE ticket_id = ?${range.sql}`,
      [ticketId, ...range.params],
    );
    return rows.map(historyFromRow);
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
