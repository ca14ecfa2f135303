import { Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { PeopleModule } from '../people/people.module.js';
import { TagsModule } from '../tags/tags.module.js';
import { FieldsModule } from '../fields/fields.module.js';
import { MergesRepository } from './merges/merges.repository.js';
import { TicketExportService } from './export/ticket-export.service.js';
import { LinksRepository } from './links/links.repository.js';
import { TicketGate } from './ticket-gate.guard.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { TicketsController } from './tickets.controller.js';
import { TicketHistoryRepository } from './ticket-history.repository.js';
import { TicketWriteHooks } from './ticket-write-hooks.js';
import { TicketsRepository } from './tickets.repository.js';
import { TicketsService } from './tickets.service.js';
import { TicketsV2Controller } from './v2/tickets-v2.controller.js';

@Module({
  imports: [DiscoveryModule, OutboxModule, IdempotencyModule, PeopleModule, TagsModule, FieldsModule],
  controllers: [TicketsController, TicketsV2Controller],
  providers: [
    TicketsService,
    TicketsRepository,
    TicketHistoryRepository,
    TicketWriteHooks,
    LinksRepository,
    MergesRepository,
    TicketExportService,
    { provide: APP_GUARD, useClass: TicketGate },
  ],
  exports: [TicketWriteHooks, TicketsService, TicketsRepository, PeopleModule, LinksRepository, MergesRepository],
})
export class TicketsModule {}
