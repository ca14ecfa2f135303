import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { TicketEvent } from '../tickets/events/ticket-event.js';
import { OutboxEvent } from './outbox-event.entity.js';

/** Records an event in the caller's transaction, so it commits or rolls back with the write it describes. */
@Injectable()
export class OutboxWriter {
  async record(manager: EntityManager, event: TicketEvent): Promise<void> {
    await manager.insert(OutboxEvent, {
      eventId: event.eventId,
      eventType: event.eventType,
      ticketId: String(event.ticketId),
      payload: JSON.stringify(event),
      occurredAt: event.occurredAt,
    });
  }
}
