import type { TicketResponse } from './dto/ticket-response.dto.js';
import type { TicketPriority } from './ticket-priority.enum.js';
import type { TicketStatus } from './ticket-status.enum.js';

/** The columns of `tickets`, selected by name so that rows can be read plain. */
export const TICKET_COLUMNS =
  'id, title, description, status, priority, requester_email, assigned_to, created_at, updated_at, resolved_at';

/** One row of `tickets` as mysql2 returns it: bigint as a string, datetimes as Dates (read as UTC). */
export interface TicketRow {
  id: string | number;
  title: string;
  description: string;
  status: TicketStatus;
  priority: TicketPriority;
  requester_email: string;
  assigned_to: string | null;
  created_at: Date;
  updated_at: Date;
  resolved_at: Date | null;
}

/**
 * Maps a raw row straight to the wire shape. Every read uses this instead of entity hydration: building an
 * entity per row and then a response from it costs more than the query, and a list would hold two copies.
 */
export function ticketFromRow(row: TicketRow): TicketResponse {
  return {
    id: Number(row.id),
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    requesterEmail: row.requester_email,
    assignedTo: row.assigned_to,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    resolvedAt: row.resolved_at,
  };
}
