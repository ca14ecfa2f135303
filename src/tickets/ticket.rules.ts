import type { TicketPatch } from './dto/ticket-patch.dto.js';
import type { TicketRequest } from './dto/ticket-request.dto.js';
import type { TicketPriority } from './ticket-priority.enum.js';
import { TicketStatus } from './ticket-status.enum.js';

/** A ticket's state apart from its id, which the database assigns: the fields these rules write. */
export interface TicketState {
  title: string;
  description: string;
  status: TicketStatus;
  priority: TicketPriority;
  requesterEmail: string;
  assignedTo: string | null;
  createdAt: Date;
  updatedAt: Date;
  resolvedAt: Date | null;
}

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

/**
 * A JSON merge patch (RFC 7396) of the client's fields: present fields replace, absent ones are kept, null
 * clears assignedTo. The result is a full replacement, so the same rules as PUT apply.
 */
export function patchTicket<T extends TicketState>(current: T, patch: TicketPatch, now: Date): T {
  const merged: TicketRequest = {
    title: patch.title ?? current.title,
    description: patch.description ?? current.description,
    status: patch.status ?? current.status,
    priority: patch.priority ?? current.priority,
    requesterEmail: patch.requesterEmail ?? current.requesterEmail,
    assignedTo: patch.assignedTo === undefined ? current.assignedTo : patch.assignedTo,
  };
  return replaceTicket(current, merged, now);
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
