import { Module } from '@nestjs/common';
import { CommentsModule } from '../comments/comments.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { LinksController } from './links.controller.js';
import { LinksModule } from './links.module.js';
import { ResolveLinkedService } from './resolve-linked.service.js';

/** The links API: it resolves a problem's incidents through the tickets' and comments' own services. */
@Module({
  imports: [LinksModule, TicketsModule, CommentsModule, IdempotencyModule],
  controllers: [LinksController],
  providers: [ResolveLinkedService],
})
export class LinksApiModule {}
