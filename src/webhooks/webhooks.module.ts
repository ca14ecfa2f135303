import { Module } from '@nestjs/common';
import { OutboxModule } from '../outbox/outbox.module.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDispatchRepository } from './webhook-dispatch.repository.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookEndpointHealth } from './webhook-endpoint-health.js';
import { WebhookFanOut } from './webhook-fan-out.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksMetrics } from './webhooks.metrics.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/** Webhooks (decision 33): endpoints, the fan-out of every recorded event, and the dispatcher that delivers them. */
@Module({
  imports: [OutboxModule],
  controllers: [WebhooksController],
  providers: [
    WebhooksService,
    WebhooksRepository,
    WebhookDeliveriesRepository,
    WebhookDispatchRepository,
    WebhookFanOut,
    WebhookDispatcher,
    WebhookEndpointHealth,
    WebhooksMetrics,
  ],
})
export class WebhooksModule {}
