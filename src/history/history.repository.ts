import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
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

/** `ticket_history`, a ticket's audit trail, read oldest first (the writes it describes record it: TicketHistoryRepository). */
@Injectable()
export class HistoryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

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
