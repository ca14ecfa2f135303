import { createHash, timingSafeEqual } from 'node:crypto';

/** Why a cursor cannot continue a list: it was not made here (or was altered), or it belongs to another list. */
export type CursorProblem = 'unreadable' | 'other-query';

/**
 * Cursors are opaque to clients: base64url of `{"q": <list fingerprint>, "k": <position>}`, a dot, and a check
 * over both. The check is a hash, not a signature (no secret to share between replicas): it catches a cursor that
 * was cut, edited or made up, which then gets a 400 instead of an arbitrary page. Someone who recomputes the
 * check can only choose where a page starts, which the filters already allow. The fingerprint ties a cursor to
 * the list (its filters and sort) it came from, so it cannot continue another.
 *
 * A cursor of any keyset list (tickets, a ticket's comments or history): the position after the last item.
 */
export function encodePosition(fingerprint: string, position: ReadonlyArray<number | string | null>): string {
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
