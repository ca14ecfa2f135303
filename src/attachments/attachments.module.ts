import { Module } from '@nestjs/common';
import { PeopleModule } from '../people/people.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { TicketHistoryRepository } from '../tickets/ticket-history.repository.js';
import { AttachmentsController } from './attachments.controller.js';
import { AttachmentsRepository } from './attachments.repository.js';
import { AttachmentsService } from './attachments.service.js';
import { AttachmentStorages } from './storage/attachment-storages.js';
import { OrphanSweeper } from './storage/orphan-sweeper.js';
import { UploadFingerprint } from './upload-fingerprint.js';
import { AttachmentsV2Controller } from './v2/attachments-v2.controller.js';

@Module({
  imports: [OutboxModule, IdempotencyModule, PeopleModule],
  controllers: [AttachmentsController, AttachmentsV2Controller],
  providers: [AttachmentsService, AttachmentsRepository, AttachmentStorages, OrphanSweeper, TicketHistoryRepository, UploadFingerprint],
  exports: [AttachmentsRepository, AttachmentsService],
})
export class AttachmentsModule {}
