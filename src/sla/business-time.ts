import type { SlaCalendar } from './sla-policy.js';

/**
 * Business-time arithmetic over a calendar, on epoch milliseconds (UTC instants), as pure functions.
 *
 * A calendar's hours are wall-clock times of its zone; each local day's intervals are turned into UTC instants
 * with the zone's offset on that day, so a day of a DST change has its 23 or 25 hours and "08:00" stays 08:00
 * local on both sides of the change. The offsets come from Intl.DateTimeFormat, that is the IANA database the
 * runtime ships and updates: a date library would add a dependency and a second copy of the zone rules to keep
 * current, for the two conversions needed here (an instant's local wall time, and back).
 */

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/**
 * How far ahead addBusinessTime searches: any calendar with hours in its week has some within that, and start-up
 * refuses goals longer than a year of a calendar's weekly hours (sla-policy.ts), which always fit.
 */
const SEARCH_DAYS = 3 * 366;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** The zone's offset from UTC at `instant`, in milliseconds (Europe/Berlin in summer: 7,200,000). */
export function zoneOffsetMs(timeZone: string, instant: number): number {
  const parts = formatter(timeZone).formatToParts(new Date(instant));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)!.value);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wall - (instant - (((instant % 1000) + 1000) % 1000));
}

/**
 * The instant at which the zone's clocks show `wall` (a wall time written as if it were UTC). Of the offsets in
 * force a day before and a day after, the one that maps back to `wall` is taken (the earlier instant where both do,
 * in the repeated hour of a fall-back change). A wall time in the gap of a spring-forward change does not exist; it
 * is read with the offset from before the gap, that is the same distance after it (02:30 → 03:30), in zones east and
 * west of UTC alike.
 */
export function instantOfWallTime(timeZone: string, wall: number): number {
  const before = wall - zoneOffsetMs(timeZone, wall - DAY_MS);
  const after = wall - zoneOffsetMs(timeZone, wall + DAY_MS);
  const exact = [before, after].filter((instant) => instant + zoneOffsetMs(timeZone, instant) === wall);
  return exact.length > 0 ? Math.min(...exact) : before;
}

/** The local day (days since 1970-01-01 in the zone's wall time) that `instant` falls on. */
function localDay(timeZone: string, instant: number): number {
  return Math.floor((instant + zoneOffsetMs(timeZone, instant)) / DAY_MS);
}

/** The open intervals of one local day as UTC instants, in order. */
function dayIntervals(calendar: Extract<SlaCalendar, { always: false }>, day: number): Array<[number, number]> {
  const midnight = day * DAY_MS;
  if (calendar.holidays.has(new Date(midnight).toISOString().slice(0, 10))) return [];
  // 1970-01-01 was a Thursday: day 0 is weekday 4.
  const weekday = (((day + 4) % 7) + 7) % 7;
  const intervals = calendar.week[weekday].map(({ start, end }): [number, number] => [
    instantOfWallTime(calendar.timeZone, midnight + start * MINUTE_MS),
    instantOfWallTime(calendar.timeZone, midnight + end * MINUTE_MS),
  ]);
  // An interval that lies wholly in a spring-forward gap starts and ends at the same instant: no open time.
  return intervals.filter(([start, end]) => start < end);
}

/**
 * The calendar's open time from `from` on, as [start, end) pieces in order (the first may start at `from`), up to
 * the local day `lastDay` when given, else as far as SEARCH_DAYS.
 */
function* openFrom(calendar: SlaCalendar, from: number, lastDay?: number): Generator<[number, number]> {
  if (calendar.always) {
    yield [from, Infinity];
    return;
  }
  // From the day before: harmless (its intervals end before `from`), and safe where a zone skips a midnight.
  const first = localDay(calendar.timeZone, from) - 1;
  const last = lastDay ?? first + SEARCH_DAYS + calendar.holidays.size;
  // An end in a spring-forward gap maps past the gap (02:30 is 03:30), so it can reach into the next interval
  // (03:00-09:00): each piece starts where the ones before it ended, and no time is counted twice.
  let reached = from;
  for (let day = first; day <= last; day++) {
    for (const [start, end] of dayIntervals(calendar, day)) {
      if (end <= reached) continue;
      yield [Math.max(start, reached), end];
      reached = end;
    }
  }
  if (lastDay !== undefined) return;
  throw new Error(`Calendar ${calendar.name} has no open hours within ${SEARCH_DAYS} days of ${new Date(from).toISOString()}`);
}

/** The instant at which `ms` of business time have passed from `from` (`from` itself for 0). */
export function addBusinessTime(calendar: SlaCalendar, from: number, ms: number): number {
  if (ms <= 0) return from;
  let left = ms;
  for (const [start, end] of openFrom(calendar, from)) {
    if (left <= end - start) return start + left;
    left -= end - start;
  }
  throw new Error('unreachable: openFrom ends by throwing');
}

/** The business time between two instants (0 when `to` is not after `from`). */
export function businessTimeBetween(calendar: SlaCalendar, from: number, to: number): number {
  if (to <= from) return 0;
  let total = 0;
  // Counted up to `to` however far it is: no day limit (an old ticket's clock may have run for years).
  const lastDay = calendar.always ? undefined : localDay(calendar.timeZone, to) + 1;
  for (const [start, end] of openFrom(calendar, from, lastDay)) {
    if (start >= to) break;
    total += Math.min(end, to) - start;
    if (end >= to) break;
  }
  return total;
}

/** Whether the calendar's hours include `instant`. */
export function isWithinHours(calendar: SlaCalendar, instant: number): boolean {
  const next = openFrom(calendar, instant).next();
  return !next.done && next.value[0] === instant;
}
