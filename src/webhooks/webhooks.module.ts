import { Module } from '@nestjs/common';
import { ChangesModule } from '../changes/changes.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDispatchRepository } from './webhook-dispatch.repository.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookEndpointHealth } from './webhook-endpoint-health.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksMetrics } from './webhooks.metrics.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/** Webhooks (decision 33): endpoints, each with its place in the change log, and the dispatcher that delivers them. */
@Module({
  imports: [OutboxModule, ChangesModule],
  controllers: [WebhooksController],
  providers: [
    WebhooksService,
    WebhooksRepository,
    WebhookDeliveriesRepository,
    WebhookDispatchRepository,
    WebhookDispatcher,
    WebhookEndpointHealth,
    WebhooksMetrics,
  ],
})
export class WebhooksModule {}
