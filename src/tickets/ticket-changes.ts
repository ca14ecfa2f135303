import type { TicketResponse } from './dto/ticket-response.dto.js';
import { type FieldValue, type FieldValues, sameValue } from '../fields/field-values.js';

/** One changed field: its value before and after the write, as the API serves them (timestamps as ISO strings). */
export interface FieldChange<Value = unknown> {
  from: Value;
  to: Value;
}

/** The fields a history entry compares (every field but the id), in the order the ticket's JSON has them. */
export const TICKET_FIELDS = [
  'title',
  'description',
  'status',
  'priority',
  'requesterEmail',
  'assignedTo',
  'createdAt',
  'updatedAt',
  'resolvedAt',
] as const;

type TicketFields = Pick<TicketResponse, (typeof TICKET_FIELDS)[number]>;

/** The fields a ticket's write changed, each as `{from, to}` (null: none); its participants (v2's ccEmails) as lists. */
export type TicketChanges = Partial<Record<(typeof TICKET_FIELDS)[number], FieldChange<string | null>>> & {
  ccEmails?: FieldChange<string[]>;
};

/**
 * The fields a write actually changed, each as `{from, to}`. A create compares with nothing (every field
 * from null); an update that changes no field of the client's still changes updatedAt, which is then all
 * the entry holds.
 */
export function ticketChanges(before: TicketFields | null, after: TicketFields): TicketChanges {
  const changes: TicketChanges = {};
  for (const field of TICKET_FIELDS) {
    const from = wire(before?.[field] ?? null);
    const to = wire(after[field]);
    if (from !== to) changes[field] = { from, to };
  }
  return changes;
}

function wire(value: string | Date | null): string | null {
  return value instanceof Date ? value.toISOString() : value;
}

/** Each custom field whose value differs, as a history entry names it: `fields.<key>` from the old value to the new (null: none). */
export function fieldChanges(before: FieldValues, after: FieldValues): Record<string, FieldChange<FieldValue | null>> {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => !sameValue(before[key], after[key]));
  return Object.fromEntries(keys.map((key) => [`fields.${key}`, { from: before[key] ?? null, to: after[key] ?? null }]));
}
