import { isEmail } from '../../src/common/validation/spring-constraints.js';

const TICKET_KEYS = [
  'id',
  'title',
  'description',
  'status',
  'priority',
  'requesterEmail',
  'assignedTo',
  'createdAt',
  'updatedAt',
  'resolvedAt',
];
const STATUSES = ['OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED'];
const PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];
const ISO_UTC_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

export interface WireTicket {
  id: number;
  title: string;
  description: string;
  status: string;
  priority: string;
  requesterEmail: string;
  assignedTo: string | null;
  createdAt: string;
  updatedAt: string;
  resolvedAt: string | null;
}

const codePoints = (value: string) => [...value].length;
const text = (value: unknown, max: number, blankAllowed = false) =>
  typeof value === 'string' && (blankAllowed || value.trim() !== '') && codePoints(value) <= max && !LONE_SURROGATE.test(value);

/** Everything that makes a ticket (as served, or as read back from the database) one the API could not have accepted. */
export function ticketProblems(ticket: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, what: string) => ok || problems.push(`${what}: ${JSON.stringify(ticket[what.split(' ')[0]])}`);
  check(Object.keys(ticket).join() === TICKET_KEYS.join(), `keys ${Object.keys(ticket).join()}`);
  check(Number.isSafeInteger(ticket.id) && (ticket.id as number) > 0, 'id');
  check(text(ticket.title, 255), 'title');
  check(text(ticket.description, 2000), 'description');
  check(STATUSES.includes(ticket.status as string), 'status');
  check(PRIORITIES.includes(ticket.priority as string), 'priority');
  check(text(ticket.requesterEmail, 255) && isEmail(ticket.requesterEmail as string), 'requesterEmail');
  check(ticket.assignedTo === null || text(ticket.assignedTo, 255, true), 'assignedTo');
  const [created, updated, resolved] = [ticket.createdAt, ticket.updatedAt, ticket.resolvedAt] as string[];
  check(ISO_UTC_MILLIS.test(created) && ISO_UTC_MILLIS.test(updated) && created <= updated, 'createdAt / updatedAt');
  check(resolved === null || (ISO_UTC_MILLIS.test(resolved) && created <= resolved && resolved <= updated), 'resolvedAt');
  return problems;
}

/** A row of the tickets table in the wire shape, for checking what is stored with ticketProblems. */
export function wireTicketFromRow(row: Record<string, any>): Record<string, unknown> {
  return {
    id: Number(row.id),
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    requesterEmail: row.requester_email,
    assignedTo: row.assigned_to,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    resolvedAt: row.resolved_at?.toISOString() ?? null,
  };
}
