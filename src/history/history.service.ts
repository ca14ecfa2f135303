import { Database } from '../database/database.js';
import { DESK, type Viewer } from '../common/context/viewer.js';
import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { type KeysetPage, type KeysetPageRequest, keysetPage } from '../common/paging/keyset-page.js';
import { assertTicketExists } from '../tickets/ticket-not-found.js';
import type { HistoryEntryResponse } from './dto/history-entry-response.dto.js';
import { HistoryRepository } from './history.repository.js';

/** A ticket's audit trail, read oldest first; each write records its entry in its own transaction (TicketHistoryRepository.record). */
@Injectable()
export class HistoryService {
  constructor(
    private readonly database: Database,
    private readonly history: HistoryRepository,
  ) {}

  /**
   * Every entry (v1 without `limit`) as a stream of rows, opened at the first (see Database.stream). Opened
   * at its end instead, it holds no row: only then is the ticket looked up, for its 404.
   */
  async stream(ticketId: string, page: KeysetPageRequest, viewer: Viewer = DESK): Promise<Readable> {
    const rows = await this.history.stream(ticketId, page, viewer);
    if (rows.readableLength === 0) await assertTicketExists(this.database, ticketId);
    return rows;
  }

  async list(ticketId: string, page: KeysetPageRequest, viewer: Viewer = DESK): Promise<KeysetPage<HistoryEntryResponse>> {
    const entries = await this.history.page(ticketId, page, viewer);
    // A ticket's rows prove it exists; only an empty page needs the extra look.
    if (entries.length === 0) await assertTicketExists(this.database, ticketId);
    return keysetPage(entries, page);
  }
}
