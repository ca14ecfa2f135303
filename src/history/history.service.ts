import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { type KeysetPage, type KeysetPageRequest, keysetPage, keysetSql } from '../common/paging/keyset-page.js';
import { assertTicketExists } from '../tickets/ticket-not-found.js';
import type { HistoryEntryResponse } from './dto/history-entry-response.dto.js';
import type { HistoryAction } from '../tickets/history-action.js';
import type { FieldChange } from '../tickets/ticket-changes.js';
import { WithinRequestDeadline } from '../database/request-deadline.js';

interface HistoryRow {
  id: string | number;
  ticket_id: string | number;
  occurred_at: Date;
  actor: string | null;
  action: HistoryAction;
  changes: string;
}

/** A ticket's audit trail, read oldest first; each write records its entry in its own transaction (recordHistory). */
@Injectable()
export class HistoryService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

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
