import { DateTime, IANAZone } from 'luxon';

export const TIME_UNITS = ['day', 'week', 'month'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];
/** The buckets one time key may count at most: a longer span is narrowed by a filter, or counted by a longer unit. */
export const TIME_BUCKETS_MAX = 1000;

/** Whether `zone` is an IANA time zone this runtime knows (`Europe/Berlin`, `UTC`). */
export function isTimeZone(zone: string): boolean {
  return IANAZone.isValidZone(zone);
}

/**
 * The buckets of `unit` in `zone` that [fromMs, toMs] falls in, in order: the instant each starts (local midnight of
 * the day, of the week's Monday, of the month's first; its first instant where a change of the clocks skips midnight)
 * and its label, the local date it starts on (`2026-03-30`) or, for a month, `2026-03`. Luxon does the calendar in
 * the zone (Intl's data), so days are 23 or 25 hours long where the clocks change. Undefined beyond TIME_BUCKETS_MAX.
 */
export function timeBuckets(
  unit: TimeUnit,
  zone: string,
  fromMs: number,
  toMs: number,
): Array<{ start: number; label: string }> | undefined {
  const buckets: Array<{ start: number; label: string }> = [];
  for (let start = DateTime.fromMillis(fromMs, { zone }).startOf(unit); start.toMillis() <= toMs;) {
    if (buckets.length === TIME_BUCKETS_MAX) return undefined;
    buckets.push({ start: start.toMillis(), label: start.toFormat(unit === 'month' ? 'yyyy-MM' : 'yyyy-MM-dd') });
    start = start.plus({ [unit]: 1 }).startOf(unit);
  }
  return buckets;
}

/**
 * An instant as the database compares a DATETIME stored in UTC with a number (`created_at + 0`): YYYYMMDDhhmmss, its
 * milliseconds as the fraction. A bucket starts on a whole second, which a double holds exactly.
 */
export function utcNumber(ms: number): number {
  const text = new Date(ms).toISOString();
  return Number(text.slice(0, 19).replace(/\D/g, '')) + (ms % 1000) / 1000;
}
