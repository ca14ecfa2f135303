import type { FieldDefinition } from '../../fields/field-definition.js';
import type { FieldValues } from '../../fields/field-values.js';
import type { TicketResponse } from '../dto/ticket-response.dto.js';
import { TICKET_FIELDS } from '../ticket-changes.js';

/** A ticket as an export writes it: the v2 body's fields, its participants, tags and custom field values. */
export type ExportedTicket = TicketResponse & { ccEmails: string[]; tags: string[]; fields: FieldValues };

const TICKET_COLUMNS = ['id', ...TICKET_FIELDS] as const;

/** The CSV header: the ticket's fields, its participants and tags, then one column per custom field (`field.<key>`). */
export function csvColumns(definitions: readonly Pick<FieldDefinition, 'key'>[]): string[] {
  return [...TICKET_COLUMNS, 'ccEmails', 'tags', ...definitions.map((definition) => `field.${definition.key}`)];
}

/**
 * A ticket as a CSV row, cell by cell in `csvColumns` order: times in ISO 8601, participants and tags joined by a space
 * (which neither holds), the options of a multi_enum as a JSON array (an option may hold any character), numbers as
 * numbers; an empty cell for no value.
 */
export function csvRow(ticket: ExportedTicket, definitions: readonly Pick<FieldDefinition, 'key'>[]): unknown[] {
  const cell = (value: unknown): string =>
    value === null || value === undefined ? '' : value instanceof Date ? value.toISOString() : String(value);
  // A number stays one: the writer escapes a leading `-` of text as a formula, not of a number (-5 is no formula).
  const field = (value: unknown) => (Array.isArray(value) ? JSON.stringify(value) : typeof value === 'number' ? value : cell(value));
  return [
    ...TICKET_COLUMNS.map((column) => cell(ticket[column])),
    ticket.ccEmails.join(' '),
    ticket.tags.join(' '),
    ...definitions.map((definition) => field(ticket.fields[definition.key])),
  ];
}
