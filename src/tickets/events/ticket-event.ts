import { randomUUID } from 'node:crypto';
import type { TicketResponse } from '../dto/ticket-response.dto.js';

export type TicketEventType = 'CREATED' | 'UPDATED';

/** The message published after a write: the ticket exactly as the write left it. */
export interface TicketEvent {
  eventId: string;
  eventType: TicketEventType;
  occurredAt: Date;
  ticketId: number;
  ticket: TicketResponse;
}

export function ticketEvent(eventType: TicketEventType, ticket: TicketResponse, occurredAt: Date): TicketEvent {
  return { eventId: randomUUID(), eventType, occurredAt, ticketId: ticket.id, ticket };
}
