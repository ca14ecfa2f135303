import { Module } from '@nestjs/common';
import { AttachmentsModule } from '../attachments/attachments.module.js';
import { CommentsModule } from '../comments/comments.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { InboundMailController } from './inbound/inbound-mail.controller.js';
import { InboundMailService } from './inbound/inbound-mail.service.js';
import { MailMessagesRepository } from './inbound/mail-messages.repository.js';
import { MailMetrics } from './mail.metrics.js';

/** Email in and out (docs/email.md): a door for mail, through the same services as the API. */
@Module({
  imports: [TicketsModule, CommentsModule, AttachmentsModule],
  controllers: [InboundMailController],
  providers: [InboundMailService, MailMessagesRepository, MailMetrics],
})
export class MailModule {}
