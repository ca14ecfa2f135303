import { Module } from '@nestjs/common';
import { CommentsModule } from '../comments/comments.module.js';
import { FieldsModule } from '../fields/fields.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { TagsModule } from '../tags/tags.module.js';
import { TicketHistoryRepository } from '../tickets/ticket-history.repository.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { MergesController } from './merges.controller.js';
import { MergesService } from './merges.service.js';

/** The merge API (its storage and the rules reads follow are the tickets', src/tickets/merges/). */
@Module({
  imports: [TicketsModule, CommentsModule, IdempotencyModule, OutboxModule, TagsModule, FieldsModule],
  controllers: [MergesController],
  providers: [MergesService, TicketHistoryRepository],
})
export class MergesModule {}
