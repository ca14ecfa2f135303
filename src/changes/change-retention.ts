/**
 * Of the oldest changes (in seq order), the longest run from the first that is past retention: retention deletes
 * a prefix of the feed, so what is kept stays one unbroken range of numbers and a cursor is either before the
 * prefix (410) or fully served. Null when the first is still within retention.
 */
export function expiredPrefix(oldest: ReadonlyArray<{ seq: number; expired: boolean }>): { seq: number; count: number } | null {
  let count = 0;
  while (count < oldest.length && oldest[count].expired) count++;
  return count === 0 ? null : { seq: oldest[count - 1].seq, count };
}
