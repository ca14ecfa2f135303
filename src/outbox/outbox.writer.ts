import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { TicketEvent } from '../tickets/events/ticket-event.js';

/** Records an event in the caller's transaction, so it commits or rolls back with the write it describes. */
@Injectable()
export class OutboxWriter {
  async record(manager: EntityManager, event: TicketEvent): Promise<void> {
    // Plain SQL: the repository's insert would read the row back for its column defaults, one more round
    // trip inside every write's transaction.
    await manager.query('INSERT INTO outbox (event_id, event_type, ticket_id, payload, occurred_at) VALUES (?, ?, ?, ?, ?)', [
      event.eventId,
      event.eventType,
      event.ticketId,
      JSON.stringify(event),
      event.occurredAt,
    ]);
  }
}
