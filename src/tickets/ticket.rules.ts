import type { TicketRequest } from './dto/ticket-request.dto.js';
import type { Ticket } from './ticket.entity.js';
import { TicketStatus } from './ticket-status.enum.js';

/** A ticket's state apart from its id, which the database assigns. */
export type TicketState = Omit<Ticket, 'id'>;

const RESOLVING_STATUSES: ReadonlySet<TicketStatus> = new Set([TicketStatus.RESOLVED, TicketStatus.CLOSED]);

/** A new ticket: timestamps are the server's; resolvedAt stays null even for a RESOLVED create. */
export function newTicket(request: TicketRequest, now: Date): TicketState {
  return {
    ...requestFields(request),
    createdAt: now,
    updatedAt: now,
    resolvedAt: null,
  };
}

/** Full replacement of the client's fields, with the server's rules for updatedAt and resolvedAt. */
export function replaceTicket<T extends TicketState>(current: T, request: TicketRequest, now: Date): T {
  return {
    ...current,
    ...requestFields(request),
    updatedAt: nextUpdatedAt(current.updatedAt, now),
    resolvedAt: current.resolvedAt ?? (RESOLVING_STATUSES.has(request.status) ? now : null),
  };
}

/** updatedAt must move forward on every update, even two within the same millisecond. */
export function nextUpdatedAt(previous: Date, now: Date): Date {
  return now.getTime() > previous.getTime() ? now : new Date(previous.getTime() + 1);
}

function requestFields(request: TicketRequest) {
  return {
    title: request.title,
    description: request.description,
    status: request.status,
    priority: request.priority,
    requesterEmail: request.requesterEmail,
    assignedTo: request.assignedTo ?? null,
  };
}
