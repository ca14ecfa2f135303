import { Module } from '@nestjs/common';
import { TicketHistoryRepository } from '../tickets/ticket-history.repository.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { AttachmentsModule } from '../attachments/attachments.module.js';
import { CommentsController } from './comments.controller.js';
import { CommentsRepository } from './comments.repository.js';
import { CommentsService } from './comments.service.js';
import { CommentsV2Controller } from './v2/comments-v2.controller.js';

@Module({
  imports: [OutboxModule, IdempotencyModule, TicketsModule, AttachmentsModule],
  controllers: [CommentsController, CommentsV2Controller],
  providers: [CommentsService, CommentsRepository, TicketHistoryRepository],
  exports: [CommentsService],
})
export class CommentsModule {}
