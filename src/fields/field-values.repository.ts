import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { Queryable } from '../database/statement-batch.js';
import { known, type RowsRead, readTogether } from '../database/rows-read.js';
import type { FieldDefinition } from './field-definition.js';
import type { StoredDefinition } from './field-definitions.repository.js';
import { type FieldValue, type FieldValues, sameValue } from './field-values.js';

export interface ValueRow {
  ticket_id: string | number;
  field_id: number;
  text_value: string | null;
  number_value: string | null;
  date_value: string | null;
}

/** The column a type's values are stored in (migration CustomFields). */
const COLUMN = {
  text: 'text_value',
  enum: 'text_value',
  multi_enum: 'text_value',
  boolean: 'text_value',
  number: 'number_value',
  date: 'date_value',
};

/** A value's rows: [item, text, number, date] each. */
function rowsOf(definition: FieldDefinition, value: FieldValue): Array<[number, string | null, number | null, string | null]> {
  switch (definition.type) {
    case 'number':
      return [[0, null, value as number, null]];
    case 'date':
      return [[0, null, null, value as string]];
    case 'boolean':
      return [[0, String(value), null, null]];
    case 'multi_enum':
      return (value as string[]).map((item, i) => [i, item, null, null]);
    default:
      return [[0, value as string, null, null]];
  }
}

/** The SQL of the JSON of a field's value over its rows grouped by ticket (for the history of a deleted field). */
function valueJsonSql(definition: FieldDefinition): string {
  switch (definition.type) {
    case 'number':
      return 'CAST(MIN(number_value) AS DOUBLE)';
    case 'date':
      return "JSON_QUOTE(DATE_FORMAT(MIN(date_value), '%Y-%m-%d'))";
    case 'boolean':
      return 'MIN(text_value)';
    case 'multi_enum':
      return "CONCAT('[', GROUP_CONCAT(JSON_QUOTE(text_value) ORDER BY item SEPARATOR ','), ']')";
    default:
      return 'JSON_QUOTE(MIN(text_value))';
  }
}

/**
 * The values of each of these tickets (at least one; a ticket without any is absent), read by the definitions they
 * belong to (a value of a field not among them is left out).
 */
export function valuesRead(ticketIds: readonly number[], definitions: readonly StoredDefinition[]): RowsRead<Map<number, FieldValues>> {
  if (definitions.length === 0) return known(new Map());
  const rows = valueRowsRead(ticketIds);
  return { ...rows, from: (read) => valuesOf(rows.from(read), definitions) };
}

/** The value rows of these tickets (at least one), for a caller that reads the definitions in the same round trip. */
export function valueRowsRead(ticketIds: readonly number[]): RowsRead<ValueRow[]> {
  return {
    sql: `SELECT ticket_id, field_id, text_value, number_value, DATE_FORMAT(date_value, '%Y-%m-%d') AS date_value
       FROM ticket_field_values WHERE ticket_id IN (?) ORDER BY ticket_id, field_id, item`,
    params: [ticketIds],
    from: (rows) => rows as ValueRow[],
  };
}

/** Each ticket's values in these rows, by the definitions they belong to (a value of a field not among them is left out). */
export function valuesOf(rows: readonly ValueRow[], definitions: readonly StoredDefinition[]): Map<number, FieldValues> {
  const found = new Map<number, FieldValues>();
  const byId = new Map(definitions.map((definition) => [definition.id, definition]));
  for (const row of rows) {
    const definition = byId.get(row.field_id);
    if (!definition) continue;
    const id = Number(row.ticket_id);
    const values = found.get(id) ?? {};
    found.set(id, values);
    if (definition.type === 'multi_enum') values[definition.key] = [...((values[definition.key] as string[]) ?? []), row.text_value!];
    else if (definition.type === 'number') values[definition.key] = Number(row.number_value);
    else if (definition.type === 'date') values[definition.key] = row.date_value!;
    else if (definition.type === 'boolean') values[definition.key] = row.text_value === 'true';
    else values[definition.key] = row.text_value!;
  }
  return found;
}

/** `ticket_field_values`: each ticket's custom field values, one row per value (per item of a multi_enum). */
@Injectable()
export class FieldValuesRepository {
  constructor(private readonly database: Database) {}

  /** The values of each of these tickets (a ticket without any is absent), read by the definitions they belong to. */
  async of(
    ticketIds: readonly number[],
    definitions: readonly StoredDefinition[],
    manager: Queryable = this.database,
  ): Promise<Map<number, FieldValues>> {
    if (ticketIds.length === 0) return new Map();
    const [found] = await readTogether(manager, valuesRead(ticketIds, definitions));
    return found;
  }

  /**
   * Changes the ticket's values from `before` to `after`, in the caller's transaction: only the fields that differ.
   * `before` must be what the ticket holds, read in that transaction after its row was locked (a value missed there
   * would not be deleted, and its INSERT would fail on the key).
   */
  async change(
    transaction: Queryable,
    ticketId: number | string,
    definitions: readonly StoredDefinition[],
    before: FieldValues,
    after: FieldValues,
  ): Promise<void> {
    const changed = definitions.filter((definition) => !sameValue(before[definition.key], after[definition.key]));
    if (changed.length === 0) return;
    // Only values that were there: a DELETE finding no row still locks the gap where it looked, and two creates whose
    // new tickets' values fall in one gap (the end of the table) then deadlock on their INSERTs.
    const held = changed.filter((definition) => before[definition.key] !== undefined);
    if (held.length > 0) {
      await transaction.query('DELETE FROM ticket_field_values WHERE ticket_id = ? AND field_id IN (?)', [
        ticketId,
        held.map((definition) => definition.id),
      ]);
    }
    const rows = changed
      .filter((definition) => after[definition.key] !== undefined)
      .flatMap((definition) => rowsOf(definition, after[definition.key]).map((row) => [ticketId, definition.id, ...row]));
    if (rows.length > 0) {
      await transaction.query(
        'INSERT INTO ticket_field_values (ticket_id, field_id, item, text_value, number_value, date_value) VALUES ?',
        [rows],
      );
    }
  }

  /** How many tickets hold a value of the field that `outside` (a condition on its rows) says the new definition refuses. */
  async countOutside(transaction: Queryable, fieldId: number, outside: { sql: string; params: unknown[] }): Promise<number> {
    const [row] = (await transaction.query(
      `SELECT COUNT(DISTINCT ticket_id) AS tickets FROM ticket_field_values WHERE field_id = ? AND (${outside.sql})`,
      [fieldId, ...outside.params],
    )) as Array<{ tickets: string | number }>;
    return Number(row.tickets);
  }

  /** The text values of a field from `afterTicket` on, a page at a time (a changed pattern is checked on each in turn). */
  async texts(
    transaction: Queryable,
    fieldId: number,
    afterTicket: number,
    limit: number,
  ): Promise<Array<{ ticketId: number; text: string }>> {
    const rows = (await transaction.query(
      // Along the primary key (ticket_id, field_id, item) from the last page on: each page starts where the last ended.
      'SELECT ticket_id, text_value FROM ticket_field_values FORCE INDEX (PRIMARY) WHERE ticket_id > ? AND field_id = ? ORDER BY ticket_id LIMIT ?',
      [afterTicket, fieldId, limit],
    )) as Array<{ ticket_id: string | number; text_value: string }>;
    return rows.map((row) => ({ ticketId: Number(row.ticket_id), text: row.text_value }));
  }

  /**
   * Records in each ticket's history that the field's value went with its definition (`fields.<key>`: from the value to
   * null), in the caller's transaction, before the definition and its values are deleted.
   */
  async recordRemoval(transaction: Queryable, definition: StoredDefinition, actor: string | null, now: Date): Promise<void> {
    await transaction.query(
      `INSERT INTO ticket_history (ticket_id, occurred_at, actor, action, changes)
       SELECT ticket_id, ?, ?, 'UPDATED', CONCAT('{"fields.${definition.key}":{"from":', ${valueJsonSql(definition)}, ',"to":null}}')
       FROM ticket_field_values WHERE field_id = ? GROUP BY ticket_id`,
      [now, actor, definition.id],
    );
  }

  /** The column of a field's values, for the list filters. */
  static column(definition: FieldDefinition): string {
    return COLUMN[definition.type];
  }
}
