import { type CursorProblem, decodePosition, encodePosition } from '../../common/paging/cursor.js';
import { FIELD_SORT_VALUE, type ListedTicket, SLA_DUE_AT } from '../ticket-row.js';
import { type FieldSortKey, SORT_COLUMNS, type SortKey } from './ticket-sort.js';

/** A cursor position: the sort key values of the last ticket of a page, ending with its id (null: no value of the field sorted by). */
export type CursorPosition = Array<number | string | null>;

/**
 * A ticket list's cursor (made as `common/paging/cursor.ts` makes every cursor) holds `[<sort key values>, <id>]`
 * of the page's last ticket; the values are bound as parameters and compared with the sort keys, nothing else.
 * Sorted by a custom field, `[<its value as stored, or null>, <id>]`.
 */
export function encodeCursor(fingerprint: string, sort: readonly SortKey[], last: ListedTicket, byField?: FieldSortKey): string {
  const values = sort.map((key) => cursorValue(last, key));
  return encodePosition(fingerprint, byField ? [last[FIELD_SORT_VALUE] ?? null, ...values] : values);
}

/** The position a cursor holds, or why it cannot be used with this query (its fingerprint and sort). */
export function decodeCursor(
  token: string,
  fingerprint: string,
  sort: readonly SortKey[],
  byField?: FieldSortKey,
): CursorPosition | CursorProblem {
  const position = decodePosition(token, fingerprint);
  if (typeof position === 'string') return position;
  const [first, ...rest] = position;
  if (byField && !(first === null || (typeof first === 'string' && [...first].length <= 255))) return 'unreadable';
  const keyed = byField ? rest : position;
  if (keyed.length !== sort.length || !sort.every((key, i) => fits(key, keyed[i]))) return 'unreadable';
  return position as CursorPosition;
}

/** The ticket's value of a sort key as a cursor holds it: a timestamp as epoch milliseconds. */
function cursorValue(ticket: ListedTicket, key: SortKey): number | string {
  const value = key.field === 'slaDueAt' ? ticket[SLA_DUE_AT]! : ticket[key.field];
  return SORT_COLUMNS[key.field].kind === 'time' ? Date.parse(value as string) : value;
}

function fits(key: SortKey, value: unknown): boolean {
  const { kind, values } = SORT_COLUMNS[key.field];
  if (kind === 'enum') return typeof value === 'string' && values!.includes(value);
  return typeof value === 'number' && Number.isSafeInteger(value) && (kind === 'time' || value >= 1);
}
