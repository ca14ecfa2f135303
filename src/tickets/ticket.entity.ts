import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TicketPriority } from './ticket-priority.enum.js';
import { TicketStatus } from './ticket-status.enum.js';

// The list queries' indexes (migration AddTicketQueryIndexes): one per common queue. Full-text search has its own
// table, ticket_words (migration CreateTicketWords).
@Entity({ name: 'tickets' })
@Index('idx_tickets_status_updated', ['status', 'updatedAt', 'id'])
@Index('idx_tickets_assignee_status', ['assignedTo', 'status', 'id'])
@Index('idx_tickets_requester_created', ['requesterEmail', 'createdAt', 'id'])
@Index('idx_tickets_priority_status', ['priority', 'status', 'id'])
export class Ticket {
  // bigint comes back from mysql2 as a string; the response mapper turns it into a number.
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'varchar', length: 255 })
  title: string;

  @Column({ type: 'varchar', length: 2000 })
  description: string;

  @Index('idx_tickets_status')
  @Column({ type: 'enum', enum: TicketStatus })
  status: TicketStatus;

  @Column({ type: 'enum', enum: TicketPriority })
  priority: TicketPriority;

  // Case-insensitive collation: the requesterEmail filter matches regardless of case and uses the index.
  @Index('idx_tickets_requester_email')
  @Column({ name: 'requester_email', type: 'varchar', length: 255, collation: 'utf8mb4_unicode_ci' })
  requesterEmail: string;

  @Column({ name: 'assigned_to', type: 'varchar', length: 255, nullable: true })
  assignedTo: string | null;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt: Date;

  @Column({ name: 'resolved_at', type: 'datetime', precision: 3, nullable: true })
  resolvedAt: Date | null;
}
