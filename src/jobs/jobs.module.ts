import { Module } from '@nestjs/common';
import { CommentsModule } from '../comments/comments.module.js';
import { FieldsModule } from '../fields/fields.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { ImportsModule } from '../imports/imports.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { JobsWorker } from './jobs-worker.js';
import { JobsController } from './jobs.controller.js';
import { JobsRepository } from './jobs.repository.js';
import { JobsService } from './jobs.service.js';

/**
 * Bulk changes and imports as jobs: the API, and the worker that works each item, a ticket changed through the tickets'
 * and comments' own services or an import's line written by imports/.
 */
@Module({
  imports: [TicketsModule, CommentsModule, IdempotencyModule, FieldsModule, ImportsModule],
  controllers: [JobsController],
  providers: [JobsService, JobsRepository, JobsWorker],
})
export class JobsModule {}
