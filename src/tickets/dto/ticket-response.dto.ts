import type { Ticket } from '../ticket.entity.js';
import type { TicketPriority } from '../ticket-priority.enum.js';
import type { TicketStatus } from '../ticket-status.enum.js';

/** The wire representation of a ticket; timestamps are serialised by JSON.stringify as UTC with a Z. */
export class TicketResponse {
  id: number;
  title: string;
  description: string;
  status: TicketStatus;
  priority: TicketPriority;
  requesterEmail: string;
  assignedTo: string | null;
  createdAt: Date;
  updatedAt: Date;
  resolvedAt: Date | null;

  static from(ticket: Ticket): TicketResponse {
    return {
      id: Number(ticket.id),
      title: ticket.title,
      description: ticket.description,
      status: ticket.status,
      priority: ticket.priority,
      requesterEmail: ticket.requesterEmail,
      assignedTo: ticket.assignedTo,
      createdAt: ticket.createdAt,
      updatedAt: ticket.updatedAt,
      resolvedAt: ticket.resolvedAt,
    };
  }
}
