import { createHash, timingSafeEqual } from 'node:crypto';
import type { ListedTicket } from '../ticket-row.js';
import { SORT_COLUMNS, type SortKey } from './ticket-sort.js';

/** A cursor position: the sort key values of the last ticket of a page, ending with its id. */
export type CursorPosition = Array<number | string>;

export type CursorProblem = 'unreadable' | 'other-query';

/**
 * Cursors are opaque to clients: base64url of `{"q": <query fingerprint>, "k": [<sort key values>, <id>]}`,
 * a dot, and a check over both. The check is a hash, not a signature (no secret to share between replicas):
 * it catches a cursor that was cut, edited or made up, which then gets a 400 instead of an arbitrary page.
 * Someone who recomputes the check can only choose where a page starts, which the filters already allow;
 * the values are bound as parameters and compared with the sort keys, nothing else.
 * The fingerprint ties a cursor to the filters and sort it came from, so it cannot continue another query.
 */
export function encodeCursor(fingerprint: string, sort: readonly SortKey[], last: ListedTicket): string {
  return encodePosition(fingerprint, sort.map((key) => cursorValue(last, key)));
}

/** The position a cursor holds, or why it cannot be used with this query (its fingerprint and sort). */
export function decodeCursor(token: string, fingerprint: string, sort: readonly SortKey[]): CursorPosition | CursorProblem {
  const position = decodePosition(token, fingerprint);
  if (typeof position === 'string') return position;
  if (position.length !== sort.length || !sort.every((key, i) => fits(key, position[i]))) return 'unreadable';
  return position as CursorPosition;
}

/** A cursor of any keyset list (tickets, a ticket's comments or history): the position after the last item. */
export function encodePosition(fingerprint: string, position: CursorPosition): string {
  const payload = JSON.stringify({ q: fingerprint, k: position });
  return `${Buffer.from(payload).toString('base64url')}.${check(payload)}`;
}

/** The position a cursor of the list `fingerprint` holds, unchecked against any sort; or why it is unusable. */
export function decodePosition(token: string, fingerprint: string): unknown[] | CursorProblem {
  const [encoded, sum, ...rest] = token.split('.');
  if (rest.length > 0 || !encoded || !sum || !/^[\w-]+$/.test(encoded)) return 'unreadable';
  const payload = Buffer.from(encoded, 'base64url').toString('utf8');
  const expected = Buffer.from(check(payload));
  if (Buffer.byteLength(sum) !== expected.length || !timingSafeEqual(Buffer.from(sum), expected)) return 'unreadable';
  let parsed: { q?: unknown; k?: unknown };
  try {
    parsed = JSON.parse(payload);
  } catch {
    return 'unreadable';
  }
  if (parsed.q !== fingerprint) return 'other-query';
  return Array.isArray(parsed.k) ? parsed.k : 'unreadable';
}

/** The fingerprint of a normalised query (filters and sort, not the page size): a short hash of its JSON. */
export function queryFingerprint(normalised: unknown): string {
  return createHash('sha256').update(JSON.stringify(normalised)).digest('base64url').slice(0, 16);
}

function check(payload: string): string {
  return createHash('sha256').update(`ticket-cursor\n${payload}`).digest('base64url').slice(0, 16);
}

/** The ticket's value of a sort key as a cursor holds it: a timestamp as epoch milliseconds. */
function cursorValue(ticket: ListedTicket, key: SortKey): number | string {
  const value = ticket[key.field];
  return SORT_COLUMNS[key.field].kind === 'time' ? Date.parse(value as string) : value;
}

function fits(key: SortKey, value: unknown): boolean {
  const { kind, values } = SORT_COLUMNS[key.field];
  if (kind === 'enum') return typeof value === 'string' && values!.includes(value);
  return typeof value === 'number' && Number.isSafeInteger(value) && (kind === 'time' || value >= 1);
}
