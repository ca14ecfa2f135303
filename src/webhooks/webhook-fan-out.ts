import { Injectable } from '@nestjs/common';
import { OutboxWriter, type RecordedEvent } from '../outbox/outbox.writer.js';
import type { TransactionWrites } from '../database/transaction.js';
import { TICKET_EVENT_ROUTING_KEYS } from '../tickets/events/ticket-event.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { webhookType } from './webhook-message.js';

/** The event kinds an endpoint may subscribe to: every kind the outbox records. */
export const WEBHOOK_EVENT_TYPES: readonly string[] = ['CREATED', 'UPDATED', ...Object.keys(TICKET_EVENT_ROUTING_KEYS), 'WEBHOOK_DISABLED'];

/**
 * Every event the outbox records becomes, in the same transaction and the same round trip as its outbox row, a
 * pending delivery for each enabled endpoint that subscribes to it, without locking the endpoints' rows (see
 * WebhookDeliveriesRepository.fanOut). From then on webhooks
 * need neither the outbox row (deleted once RabbitMQ confirms it) nor RabbitMQ, and RabbitMQ never waits for a
 * slow endpoint. Once the transaction has committed, the dispatcher looks for the deliveries it wrote.
 */
@Injectable()
export class WebhookFanOut {
  constructor(writer: OutboxWriter, deliveries: WebhookDeliveriesRepository, dispatcher: WebhookDispatcher) {
    // One function for every event, so that a transaction wakes the dispatcher once.
    const wakeDispatcher = () => dispatcher.deliveriesWritten();
    writer.follow(async (writes: TransactionWrites, event: RecordedEvent) => {
      writes.afterCommit(wakeDispatcher);
      await deliveries.fanOut(writes, {
        eventId: event.eventId,
        eventType: event.eventType,
        type: webhookType(event.eventType, event.routingKey),
        ticketId: event.ticketId,
        payload: event.payload,
        occurredAt: event.occurredAt,
      });
    });
  }
}
