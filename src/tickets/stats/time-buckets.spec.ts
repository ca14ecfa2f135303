import fc from 'fast-check';
import { isTimeZone, TIME_BUCKETS_MAX, timeBuckets, type TimeUnit, utcNumber } from './time-buckets.js';

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'America/Sao_Paulo',
  'Asia/Kolkata',
  'Australia/Lord_Howe',
  'Pacific/Apia',
  'Asia/Kathmandu',
];
const DAY = 86_400_000;

/** The local calendar date of an instant in a zone, by Intl alone (not the library under test). */
function localDate(ms: number, zone: string): { year: number; month: number; day: number; weekday: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    weekday: 'short',
  }).formatToParts(new Date(ms));
  const part = (type: string) => parts.find((item) => item.type === type)!.value;
  return {
    year: Number(part('year')),
    month: Number(part('month')),
    day: Number(part('day')),
    weekday: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(part('weekday')),
  };
}

/** The label of the bucket an instant falls in: its local date, floored to the unit's start. */
function expectedLabel(ms: number, zone: string, unit: TimeUnit): string {
  const { year, month, day, weekday } = localDate(ms, zone);
  const pad = (value: number) => String(value).padStart(2, '0');
  if (unit === 'month') return `${year}-${pad(month)}`;
  const start = new Date(Date.UTC(year, month - 1, day) - (unit === 'week' ? weekday * DAY : 0));
  return start.toISOString().slice(0, 10);
}

describe('time buckets', () => {
  it('put every instant of the range in the one bucket of its local day, week or month, in order (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.constantFrom<TimeUnit>('day', 'week', 'month'),
        fc.integer({ min: Date.UTC(2010, 0, 1), max: Date.UTC(2030, 0, 1) }),
        fc.integer({ min: 0, max: 120 * DAY }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 20 }),
        (zone, unit, from, span, at) => {
          const to = from + span;
          const buckets = timeBuckets(unit, zone, from, to)!;
          expect(buckets[0].start).toBeLessThanOrEqual(from);
          for (let i = 1; i < buckets.length; i++) expect(buckets[i].start).toBeGreaterThan(buckets[i - 1].start);
          expect(buckets.at(-1)!.start).toBeLessThanOrEqual(to);
          expect(new Set(buckets.map((bucket) => bucket.label)).size).toBe(buckets.length);
          for (const fraction of [0, 1, ...at]) {
            const instant = Math.floor(from + fraction * span);
            const bucket = buckets.filter((candidate) => candidate.start <= instant).at(-1)!;
            expect(bucket.label).toBe(expectedLabel(instant, zone, unit));
            // The instant just before a bucket starts is in the one before.
            expect(expectedLabel(bucket.start - 1, zone, unit)).not.toBe(bucket.label);
            expect(expectedLabel(bucket.start, zone, unit)).toBe(bucket.label);
          }
        },
      ),
    );
  });

  it('has 23- and 25-hour days where the clocks change, and a missing day where a zone skipped one', () => {
    const berlin = timeBuckets('day', 'Europe/Berlin', Date.parse('2024-03-30T12:00:00Z'), Date.parse('2024-04-01T12:00:00Z'))!;
    expect(berlin.map((bucket) => bucket.label)).toEqual(['2024-03-30', '2024-03-31', '2024-04-01']);
    expect((berlin[2].start - berlin[1].start) / 3_600_000).toBe(23);
    // Samoa moved across the date line: 2011-12-30 never happened there.
    const apia = timeBuckets('day', 'Pacific/Apia', Date.parse('2011-12-29T12:00:00Z'), Date.parse('2011-12-30T12:00:00Z'))!;
    expect(apia.map((bucket) => bucket.label)).toEqual(['2011-12-29', '2011-12-31']);
  });

  it(`answers nothing beyond ${TIME_BUCKETS_MAX} buckets, knows IANA zones, and writes an instant as the database compares it`, () => {
    expect(timeBuckets('day', 'UTC', 0, TIME_BUCKETS_MAX * DAY)).toBeUndefined();
    expect(timeBuckets('day', 'UTC', 0, (TIME_BUCKETS_MAX - 1) * DAY)).toHaveLength(TIME_BUCKETS_MAX);
    expect([isTimeZone('Europe/Berlin'), isTimeZone('UTC'), isTimeZone('Mars/Olympus'), isTimeZone('')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(utcNumber(Date.parse('2024-03-30T23:00:00Z'))).toBe(20240330230000);
  });
});
