import { Module } from '@nestjs/common';
import { CommentsRepository } from '../comments/comments.repository.js';
import { FieldsModule } from '../fields/fields.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { TagsModule } from '../tags/tags.module.js';
import { TicketHistoryRepository } from '../tickets/ticket-history.repository.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { ImportsRepository } from './imports.repository.js';
import { TicketImporter } from './ticket-importer.js';

/** Tickets from another desk (docs/import.md): how a line is checked and written; jobs/ receives imports and works them. */
@Module({
  imports: [TicketsModule, OutboxModule, TagsModule, FieldsModule],
  providers: [TicketImporter, ImportsRepository, CommentsRepository, TicketHistoryRepository],
  exports: [TicketImporter, ImportsRepository],
})
export class ImportsModule {}
