import { decodePosition, encodePosition } from '../common/paging/cursor.js';

/** Ties the feed's cursors to the feed: a cursor of a ticket list cannot continue it, nor the other way round. */
const FEED = 'changes';

/** The opaque cursor of the position after the change numbered `seq` (0: before the first change ever). */
export function encodeChangeCursor(seq: number): string {
  return encodePosition(FEED, [seq]);
}

/** The number a cursor holds, or null when it is not a cursor of the feed or was altered. */
export function decodeChangeCursor(cursor: string): number | null {
  const position = decodePosition(cursor, FEED);
  if (!Array.isArray(position) || position.length !== 1) return null;
  const [seq] = position;
  return typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : null;
}
