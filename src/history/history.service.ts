import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { type KeysetPage, type KeysetPageRequest, keysetPage } from '../common/paging/keyset-page.js';
import { assertTicketExists } from '../tickets/ticket-not-found.js';
import type { HistoryEntryResponse } from './dto/history-entry-response.dto.js';
import { HistoryRepository } from './history.repository.js';
import { WithinRequestDeadline } from '../database/request-deadline.js';

/** A ticket's audit trail, read oldest first; each write records its entry in its own transaction (TicketHistoryRepository.record). */
@Injectable()
export class HistoryService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly history: HistoryRepository,
  ) {}

  @WithinRequestDeadline()
  async list(ticketId: string, page: KeysetPageRequest): Promise<KeysetPage<HistoryEntryResponse>> {
    const entries = await this.history.page(ticketId, page);
    // A ticket's rows prove it exists; only an empty page needs the extra look.
    if (entries.length === 0) await assertTicketExists(this.dataSource, ticketId);
    return keysetPage(entries, page);
  }
}
