import { Module } from '@nestjs/common';
import { AttachmentsModule } from '../attachments/attachments.module.js';
import { CommentsModule } from '../comments/comments.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { InboundMailController } from './inbound/inbound-mail.controller.js';
import { InboundMailService } from './inbound/inbound-mail.service.js';
import { MailMessagesRepository } from './inbound/mail-messages.repository.js';
import { MailMetrics } from './mail.metrics.js';
import { MailboxLeasesRepository } from './inbound/mailbox-leases.repository.js';
import { MailboxReader } from './inbound/mailbox-reader.js';
import { ChangesModule } from '../changes/changes.module.js';
import { MailNotificationsRepository } from './outbound/mail-notifications.repository.js';
import { MailNotifier } from './outbound/mail-notifier.js';
import { MailSender } from './outbound/mail-sender.js';
import { NotificationsController } from './outbound/notifications.controller.js';

/** Email in and out (docs/email.md): a door for mail, through the same services as the API. */
@Module({
  imports: [TicketsModule, CommentsModule, AttachmentsModule, ChangesModule],
  controllers: [InboundMailController, NotificationsController],
  providers: [
    InboundMailService,
    MailMessagesRepository,
    MailMetrics,
    MailNotificationsRepository,
    MailNotifier,
    MailSender,
    MailboxLeasesRepository,
    MailboxReader,
  ],
  exports: [MailboxReader, MailSender],
})
export class MailModule {}
