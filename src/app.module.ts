import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER } from '@nestjs/core';
import { SpringErrorFilter } from './common/errors/spring-error.filter.js';
import { parseConfig } from './config/app-config.js';
import { DatabaseModule } from './database/database.module.js';
import { HealthModule } from './health/health.module.js';
import { LoggingModule } from './logging/logging.module.js';
import { MessagingModule } from './messaging/messaging.module.js';
import { ObservabilityModule } from './observability/observability.module.js';
import { TicketsModule } from './tickets/tickets.module.js';

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, cache: true, validate: parseConfig }),
    LoggingModule,
    DatabaseModule,
    MessagingModule,
    TicketsModule,
    HealthModule,
    ObservabilityModule,
  ],
  providers: [{ provide: APP_FILTER, useClass: SpringErrorFilter }],
})
export class AppModule {}
