import type { TicketResponse } from './dto/ticket-response.dto.js';
import type { TicketPriority } from './ticket-priority.enum.js';
import type { TicketStatus } from './ticket-status.enum.js';

/** The columns of `tickets`, selected by name so that rows can be read plain. */
export const TICKET_COLUMNS = 'id, title, description, status, priority, requester_email, assigned_to, created_at, updated_at, resolved_at';

/** One row of `tickets` as mysql2 returns it: bigint as a string, datetimes as `Time`. */
interface Row<Time> {
  id: string | number;
  title: string;
  description: string;
  status: TicketStatus;
  priority: TicketPriority;
  requester_email: string;
  assigned_to: string | null;
  created_at: Time;
  updated_at: Time;
  resolved_at: Time | null;
}

/** A row with its datetimes as Dates (read as UTC). */
export type TicketRow = Row<Date>;

/** A row read with mysql2's `dateStrings`: the datetime(3) columns as `YYYY-MM-DD HH:MM:SS.mmm` (UTC). */
export type TicketTextRow = Row<string>;

/** The wire shape with timestamps as `Time`. */
type Wire<Time> = Omit<TicketResponse, 'createdAt' | 'updatedAt' | 'resolvedAt'> & {
  createdAt: Time;
  updatedAt: Time;
  resolvedAt: Time | null;
};

/**
 * The SLA due time of a listed ticket, when its query sorts by it: for the page's cursor only. A symbol key, so that
 * JSON.stringify never writes it and the body stays the ticket's own fields.
 */
export const SLA_DUE_AT = Symbol('slaDueAt');

/** A ticket of a list: the wire shape with its timestamps already as the ISO strings JSON.stringify would write. */
export type ListedTicket = Wire<string> & { [SLA_DUE_AT]?: string };

/**
 * Maps a raw row straight to the wire shape. Every read uses this instead of entity hydration: building an
 * entity per row and then a response from it costs more than the query, and a list would hold two copies.
 */
export function ticketFromRow(row: TicketRow): TicketResponse {
  return wireShape(row, (date) => date);
}

/**
 * Maps a row read with date strings to a listed ticket, whose JSON is byte for byte that of ticketFromRow's: the
 * timestamps go from MariaDB's text to ISO 8601 by moving two characters, where a Date would be parsed from the
 * text and formatted again, three per ticket; a list of 1,000 tickets costs about a third less CPU so.
 */
export function listedTicketFromRow(row: TicketTextRow & { sla_due_at?: string }): ListedTicket {
  const ticket: ListedTicket = wireShape(row, isoInstant);
  if (row.sla_due_at !== undefined) ticket[SLA_DUE_AT] = isoInstant(row.sla_due_at);
  return ticket;
}

const text = JSON.stringify;

/**
 * A listed ticket's JSON, as res.json writes it in an array (the list is streamed, see sendJsonArray): the bytes of
 * JSON.stringify(listedTicketFromRow(row)), written field by field. An unpaged list writes a million of these, and
 * building the object only for JSON.stringify to walk it again is about half the CPU the service spends per row.
 */
export function listedTicketJson(row: TicketTextRow): string {
  return (
    `{"id":${Number(row.id)},"title":${text(row.title)},"description":${text(row.description)},"status":${text(row.status)}` +
    `,"priority":${text(row.priority)},"requesterEmail":${text(row.requester_email)},"assignedTo":${nullable(row.assigned_to)}` +
    `,"createdAt":"${isoInstant(row.created_at)}","updatedAt":"${isoInstant(row.updated_at)}"` +
    `,"resolvedAt":${row.resolved_at === null ? 'null' : `"${isoInstant(row.resolved_at)}"`}}`
  );
}

function nullable(value: string | null): string {
  return value === null ? 'null' : text(value);
}

function wireShape<In, Out>(row: Row<In>, instant: (value: In) => Out): Wire<Out> {
  return {
    id: Number(row.id),
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    requesterEmail: row.requester_email,
    assignedTo: row.assigned_to,
    createdAt: instant(row.created_at),
    updatedAt: instant(row.updated_at),
    resolvedAt: row.resolved_at === null ? null : instant(row.resolved_at),
  };
}

/** `2026-11-23 09:00:00.123` (a UTC datetime(3)) as `2026-11-23T09:00:00.123Z`. */
function isoInstant(text: string): string {
  return `${text.slice(0, 10)}T${text.slice(11)}Z`;
}
