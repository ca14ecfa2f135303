import { decodePosition, encodePosition } from '../common/paging/cursor.js';

/** Ties the feed's cursors to the feed: a cursor of a ticket list cannot continue it, nor the other way round. */
const FEED = 'changes';

/**
 * A position in the feed: after the change numbered `seq` (0: before the first change ever), and when that change
 * was numbered (`numberedAt`, ms on the database's clock; absent before the first change, and in cursors issued
 * before the feed recorded it).
 */
export interface ChangePosition {
  seq: number;
  numberedAt?: number;
}

/** The opaque cursor of a position. */
export function encodeChangeCursor(seq: number, numberedAt?: number): string {
  return encodePosition(FEED, numberedAt === undefined ? [seq] : [seq, numberedAt]);
}

/** The position a cursor holds, or null when it is not a cursor of the feed or was altered. */
export function decodeChangePosition(cursor: string): ChangePosition | null {
  const position = decodePosition(cursor, FEED);
  if (!Array.isArray(position) || position.length < 1 || position.length > 2) return null;
  const [seq, numberedAt] = position;
  if (!isCount(seq) || (numberedAt !== undefined && !isCount(numberedAt))) return null;
  return numberedAt === undefined ? { seq } : { seq, numberedAt };
}

/** The number a cursor holds, or null when it is not a cursor of the feed or was altered. */
export function decodeChangeCursor(cursor: string): number | null {
  return decodeChangePosition(cursor)?.seq ?? null;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
