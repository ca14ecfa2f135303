import { Module } from '@nestjs/common';
import { CommentsModule } from '../comments/comments.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { LinksController } from './links.controller.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { TicketHistoryRepository } from '../tickets/ticket-history.repository.js';
import { LinksService } from './links.service.js';
import { ResolveLinkedService } from './resolve-linked.service.js';

/**
 * The links API (their storage and rules are the tickets', src/tickets/links/, which v2 bodies and list filters read): it
 * resolves a problem's incidents through the tickets' and comments' own services.
 */
@Module({
  imports: [TicketsModule, CommentsModule, IdempotencyModule, OutboxModule],
  controllers: [LinksController],
  providers: [LinksService, ResolveLinkedService, TicketHistoryRepository],
})
export class LinksModule {}
