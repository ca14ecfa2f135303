import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { TicketHistoryRepository } from '../tickets/ticket-history.repository.js';
import { LinksRepository } from './links.repository.js';
import { LinksService } from './links.service.js';

/** Links' storage and rules; tickets read their counts from it (v2 bodies, list filters), the API is LinksApiModule's. */
@Module({
  imports: [OutboxModule, IdempotencyModule],
  providers: [LinksRepository, LinksService, TicketHistoryRepository],
  exports: [LinksRepository, LinksService],
})
export class LinksModule {}
