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

/** The value of the custom field a list sorts by (`sort=field.<key>`) as stored, null without one: for the page's cursor only. */
export const FIELD_SORT_VALUE = Symbol('fieldSortValue');

/** A ticket of a list: the wire shape with its timestamps already as the ISO strings JSON.stringify would write. */
export type ListedTicket = Wire<string> & { [SLA_DUE_AT]?: string; [FIELD_SORT_VALUE]?: string | null };

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
export function listedTicketFromRow(row: TicketTextRow & { sla_due_at?: string; field_sort?: string | null }): ListedTicket {
  const ticket: ListedTicket = wireShape(row, isoInstant);
  if (row.sla_due_at !== undefined) ticket[SLA_DUE_AT] = isoInstant(row.sla_due_at);
  if (row.field_sort !== undefined) ticket[FIELD_SORT_VALUE] = row.field_sort;
  return ticket;
}

/** `column` (a UTC datetime(3)) as the JSON string of its ISO 8601 instant, `"2026-11-23T09:00:00.123Z"`. */
const sqlInstant = (column: string) => `'"', LEFT(${column}, 10), 'T', SUBSTRING(${column}, 12), 'Z"'`;

/**
 * A listed ticket's JSON, written by the database as one column `json` and read as its bytes (RowStreamOptions.bytes):
 * an unpaged list may be a million tickets, and decoding ten columns to strings, escaping them and encoding the JSON
 * again cost the service's one thread about 3.5 µs a row (a million in 3.5 s) where this costs it about 1.2; the
 * database does it on its own thread. ticketJsonBytes makes the bytes JSON.stringify's for the listed ticket.
 */
export const TICKET_JSON_COLUMN =
  `CONCAT('{"id":', id, ',"title":', JSON_QUOTE(title), ',"description":', JSON_QUOTE(description),` +
  ` ',"status":"', status, '","priority":"', priority, '","requesterEmail":', JSON_QUOTE(requester_email),` +
  ` ',"assignedTo":', IFNULL(JSON_QUOTE(assigned_to), 'null'), ',"createdAt":', ${sqlInstant('created_at')},` +
  ` ',"updatedAt":', ${sqlInstant('updated_at')}, ',"resolvedAt":', IFNULL(CONCAT(${sqlInstant('resolved_at')}), 'null'), '}') AS json`;

/** The characters JSON escapes with a backslash and a letter (and `/`, which it may): `"\/\b\f\n\r\t`. */
export const SHORT_ESCAPES = '"\\/\b\f\n\r\t';

/**
 * The bytes of a row read with TICKET_JSON_COLUMN as JSON.stringify writes them. A server's JSON_QUOTE may escape
 * otherwise than JSON.stringify, and only in escapes, which start with a backslash: rows holding one are written
 * again by JSON.stringify (exact, and about 3 µs a row). JSON has no other escapes than `\u` and those of
 * SHORT_ESCAPES, so when the server quotes SHORT_ESCAPES as JSON.stringify does (`shortEscapesAlike`), only rows
 * with a `\u` can differ: MariaDB writes the hex digits of its `\u00XX` in upper case, JSON.stringify in lower.
 * A property test through the database holds the bytes equal for any text.
 */
export function ticketJsonBytes(shortEscapesAlike: boolean): (row: [Buffer]) => Buffer {
  const differs = Buffer.from(shortEscapesAlike ? '\\u' : '\\');
  return ([json]) => (json.indexOf(differs) === -1 ? json : Buffer.from(JSON.stringify(JSON.parse(json.toString('utf8')))));
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
