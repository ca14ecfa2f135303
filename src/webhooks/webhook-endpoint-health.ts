import { Database } from '../database/database.js';
import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { OutboxWriter } from '../outbox/outbox.writer.js';
import type { ClaimedDelivery } from './webhook-dispatch.repository.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhooksRepository } from './webhooks.repository.js';

/** The routing key of WEBHOOK_DISABLED (decision 26: a key of its own under `ticket.`). */
export const WEBHOOK_DISABLED_ROUTING_KEY = 'ticket.webhook.disabled';

/**
 * The event of an endpoint's disabling. It concerns no ticket: `ticketId` is 0, kept so that every event has the
 * same envelope. The URL is left out on purpose: webhook URLs often carry a token of their own.
 */
export interface WebhookDisabledEvent {
  eventId: string;
  eventType: 'WEBHOOK_DISABLED';
  occurredAt: Date;
  ticketId: 0;
  webhook: { id: number; description: string | null; reason: string };
}

/**
 * An endpoint's failure streak and its disabling. The streak starts with the first failed attempt after a
 * success and ends with the next success; an endpoint whose streak has lasted WEBHOOKS_DISABLE_AFTER is
 * disabled, and so is one that answered 410 Gone. Disabling and its WEBHOOK_DISABLED event commit together; of
 * several replicas disabling at once, only the one whose update changed the row records the event.
 */
@Injectable()
export class WebhookEndpointHealth {
  private readonly logger = new Logger(WebhookEndpointHealth.name);
  private readonly disableAfterMs: number;

  constructor(
    private readonly database: Database,
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly outbox: OutboxWriter,
    config: ConfigService<AppConfig, true>,
  ) {
    this.disableAfterMs = config.get('webhooks.disableAfterMs', { infer: true });
  }

  async succeeded(delivery: ClaimedDelivery): Promise<void> {
    if (delivery.failingSince) await this.webhooks.stopFailing(delivery.webhookId);
  }

  async failed(delivery: ClaimedDelivery, at: Date): Promise<void> {
    if (!delivery.failingSince) return this.webhooks.startFailing(delivery.webhookId, at);
    if (at.getTime() - delivery.failingSince.getTime() < this.disableAfterMs) return;
    await this.disable(delivery.webhookId, `every delivery failed since ${delivery.failingSince.toISOString()}`);
  }

  async disable(webhookId: number, reason: string): Promise<void> {
    const now = new Date();
    const disabled = await this.database.transaction(async (transaction) => {
      const endpoint = await this.webhooks.findOne(webhookId, transaction);
      if (!endpoint || !(await this.webhooks.disable(transaction, webhookId, reason, now))) return false;
      await this.deliveries.pause(webhookId, transaction.later);
      const event: WebhookDisabledEvent = {
        eventId: randomUUID(),
        eventType: 'WEBHOOK_DISABLED',
        occurredAt: now,
        ticketId: 0,
        webhook: { id: webhookId, description: endpoint.description, reason },
      };
      await this.outbox.record(transaction.later, event, WEBHOOK_DISABLED_ROUTING_KEY);
      return true;
    });
    if (!disabled) return;
    this.logger.warn(`Webhook ${webhookId} disabled: ${reason}`);
  }
}
