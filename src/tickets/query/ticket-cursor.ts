import { type CursorProblem, decodePosition, encodePosition } from '../../common/paging/cursor.js';
import { type ListedTicket, SLA_DUE_AT } from '../ticket-row.js';
import { SORT_COLUMNS, type SortKey } from './ticket-sort.js';

/** A cursor position: the sort key values of the last ticket of a page, ending with its id. */
export type CursorPosition = Array<number | string>;

/**
 * A ticket list's cursor (made as `common/paging/cursor.ts` makes every cursor) holds `[<sort key values>, <id>]`
 * of the page's last ticket; the values are bound as parameters and compared with the sort keys, nothing else.
 */
export function encodeCursor(fingerprint: string, sort: readonly SortKey[], last: ListedTicket): string {
  return encodePosition(
    fingerprint,
    sort.map((key) => cursorValue(last, key)),
  );
}

/** The position a cursor holds, or why it cannot be used with this query (its fingerprint and sort). */
export function decodeCursor(token: string, fingerprint: string, sort: readonly SortKey[]): CursorPosition | CursorProblem {
  const position = decodePosition(token, fingerprint);
  if (typeof position === 'string') return position;
  if (position.length !== sort.length || !sort.every((key, i) => fits(key, position[i]))) return 'unreadable';
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
