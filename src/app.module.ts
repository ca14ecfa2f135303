import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { SpringErrorFilter } from './common/errors/spring-error.filter.js';
import { CommentsModule } from './comments/comments.module.js';
import { ChangesModule } from './changes/changes.module.js';
import { AttachmentsModule } from './attachments/attachments.module.js';
import { HistoryModule } from './history/history.module.js';
import { configModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { DocsRoutes } from './docs/docs-routes.js';
import { ActuatorModule } from './actuator/actuator.module.js';
import { LoggingModule } from './logging/logging.module.js';
import { MessagingModule } from './messaging/messaging.module.js';
import { ObservabilityModule } from './observability/observability.module.js';
import { SecurityModule } from './security/security.module.js';
import { SlaModule } from './sla/sla.module.js';
import { TicketsModule } from './tickets/tickets.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { PeopleModule } from './people/people.module.js';
import { MailModule } from './mail/mail.module.js';
import { LinksModule } from './links/links.module.js';
import { MergesModule } from './merges/merges.module.js';
import { JobsModule } from './jobs/jobs.module.js';

@Module({
  imports: [
    configModule,
    LoggingModule,
    DatabaseModule,
    MessagingModule,
    SecurityModule,
    TicketsModule,
    SlaModule,
    HistoryModule,
    CommentsModule,
    ChangesModule,
    WebhooksModule,
    PeopleModule,
    AttachmentsModule,
    MailModule,
    LinksModule,
    MergesModule,
    JobsModule,
    ActuatorModule,
    ObservabilityModule,
  ],
  providers: [{ provide: APP_FILTER, useClass: SpringErrorFilter }, DocsRoutes],
})
export class AppModule {}
