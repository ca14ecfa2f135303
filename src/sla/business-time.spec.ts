import fc from 'fast-check';
import type { SlaCalendar } from './sla-policy.js';
import { addBusinessTime, businessTimeBetween, isWithinHours } from './business-time.js';

const H = 3_600_000;
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const hours = (...texts: string[]) =>
  texts.map((text) => {
    const [start, end] = text.split('-').map((hm) => Number(hm.slice(0, 2)) * 60 + Number(hm.slice(3)));
    return { start, end };
  });

function calendar(timeZone: string, week: Partial<Record<number, string[]>>, holidays: string[] = []): SlaCalendar {
  return {
    name: 'test',
    always: false,
    timeZone,
    week: [0, 1, 2, 3, 4, 5, 6].map((day) => hours(...(week[day] ?? []))),
    holidays: new Set(holidays),
  };
}

const workdays = (...intervals: string[]) => ({ 1: intervals, 2: intervals, 3: intervals, 4: intervals, 5: intervals });
/** Berlin office hours with a lunch break and Christmas Day off. */
const office = calendar('Europe/Berlin', workdays('08:00-12:00', '13:00-17:00'), ['2026-12-25']);
const always: SlaCalendar = { name: 'always', always: true };
const allSundays = (zone: string) => calendar(zone, { 0: ['00:00-24:00'] });

describe('business time across a DST change', () => {
  it.each([
    ['Europe/Berlin', '2026-03-29', 23],
    ['Europe/Berlin', '2026-10-25', 25],
    ['America/New_York', '2026-03-08', 23],
    ['America/New_York', '2026-11-01', 25],
  ])('counts the Sunday of %s %s as %i hours', (zone, date, length) => {
    const sundays = allSundays(zone);
    expect(businessTimeBetween(sundays, at(`${date}T00:00:00Z`) - 2 * 24 * H, at(`${date}T00:00:00Z`) + 3 * 24 * H)).toBe(length * H);
  });

  it('keeps 08:00 local on both sides of the spring change in Berlin (UTC+1 on Friday, UTC+2 on Monday)', () => {
    // Friday 27 March 16:00 CET, two hours: one on Friday, one from 08:00 CEST on Monday.
    expect(iso(addBusinessTime(office, at('2026-03-27T15:00:00Z'), 2 * H))).toBe('2026-03-30T07:00:00.000Z');
  });

  it('keeps 09:00 local on both sides of the autumn change in New York', () => {
    const nyOffice = calendar('America/New_York', workdays('09:00-17:00'));
    // Friday 30 October 16:00 EDT (20:00Z), two hours: to Monday 2 November 10:00 EST (15:00Z).
    expect(iso(addBusinessTime(nyOffice, at('2026-10-30T20:00:00Z'), 2 * H))).toBe('2026-11-02T15:00:00.000Z');
  });
});

describe('business time at the edges of a DST gap', () => {
  it('counts the time of intervals that meet in a spring-forward gap once (an end in the gap reaches past it)', () => {
    // New York, 14 March 2027: 02:00-03:00 does not exist; 00:00-02:30 ends at 03:30 EDT, past 03:00-09:00's start.
    const sundays = calendar('America/New_York', { 0: ['00:00-02:30', '02:30-03:00', '03:00-09:00'] });
    const from = at('2027-03-14T05:00:00Z');
    expect(businessTimeBetween(sundays, from, at('2027-03-14T13:00:00Z'))).toBe(8 * H);
    const to = addBusinessTime(sundays, from, 2 * H + 1);
    expect(businessTimeBetween(sundays, from, to)).toBe(2 * H + 1);
  });

  it('counts a Santiago Saturday whose midnight is skipped as 24 hours (west of UTC)', () => {
    const saturdays = calendar('America/Santiago', { 6: ['00:00-24:00'] });
    expect(businessTimeBetween(saturdays, at('2026-09-05T04:00:00Z'), at('2026-09-07T04:00:00Z'))).toBe(24 * H);
    expect(iso(addBusinessTime(saturdays, at('2026-09-05T04:00:00Z'), 24 * H))).toBe('2026-09-06T04:00:00.000Z');
  });

  it('counts New York 00:00-02:30 on the day of the spring change as 150 minutes, the missing 02:30 being 03:30', () => {
    const early = calendar('America/New_York', { 0: ['00:00-02:30'] });
    // 00:00 EST = 05:00Z; 02:30 does not exist and is 03:30 EDT = 07:30Z.
    expect(businessTimeBetween(early, at('2026-03-07T00:00:00Z'), at('2026-03-09T00:00:00Z'))).toBe(150 * 60_000);
  });

  it('counts an interval wholly inside the Berlin gap as nothing, and adds past it to the next week', () => {
    const gap = calendar('Europe/Berlin', { 0: ['02:30-03:00', '04:00-05:00'] });
    expect(businessTimeBetween(gap, at('2026-03-28T00:00:00Z'), at('2026-03-30T00:00:00Z'))).toBe(H);
    // 10 minutes from Saturday: 04:00 CEST (02:00Z) on Sunday, plus 10 minutes.
    expect(iso(addBusinessTime(gap, at('2026-03-28T12:00:00Z'), 10 * 60_000))).toBe('2026-03-29T02:10:00.000Z');
  });
});

describe('business time over long spans', () => {
  it('counts a span of more than three years (no day limit)', () => {
    // 2023-01-02 is a Monday; 2026-06-29 too: 182 weeks less Christmas Day 2026 (after the span), of 40 hours each.
    expect(businessTimeBetween(office, at('2023-01-02T00:00:00Z'), at('2026-06-29T00:00:00Z'))).toBe(182 * 40 * H);
  });
});

describe('business time in office hours', () => {
  it('starts counting at the next opening for an instant at night', () => {
    // Tuesday 24 November 20:00 CET: one hour is Wednesday 09:00 CET.
    expect(iso(addBusinessTime(office, at('2026-11-24T19:00:00Z'), H))).toBe('2026-11-25T08:00:00.000Z');
    expect(isWithinHours(office, at('2026-11-24T19:00:00Z'))).toBe(false);
    expect(isWithinHours(office, at('2026-11-25T08:00:00Z'))).toBe(true);
  });

  it('skips the weekend', () => {
    // Friday 27 November 16:30 CET: half an hour on Friday, half an hour on Monday.
    expect(iso(addBusinessTime(office, at('2026-11-27T15:30:00Z'), H))).toBe('2026-11-30T07:30:00.000Z');
    expect(businessTimeBetween(office, at('2026-11-27T15:30:00Z'), at('2026-11-30T07:30:00Z'))).toBe(H);
  });

  it('skips a holiday', () => {
    // Thursday 24 December 16:00 CET: an hour on Thursday; Friday is Christmas Day; an hour on Monday.
    expect(iso(addBusinessTime(office, at('2026-12-24T15:00:00Z'), 2 * H))).toBe('2026-12-28T08:00:00.000Z');
  });

  it('skips the lunch break between two intervals of a day', () => {
    // Monday 23 November 11:30 CET: half an hour before lunch, half an hour after.
    expect(iso(addBusinessTime(office, at('2026-11-23T10:30:00Z'), H))).toBe('2026-11-23T12:30:00.000Z');
    expect(isWithinHours(office, at('2026-11-23T11:30:00Z'))).toBe(false);
  });

  it('counts a whole working day as eight hours and a week as forty', () => {
    expect(businessTimeBetween(office, at('2026-11-23T00:00:00Z'), at('2026-11-24T00:00:00Z'))).toBe(8 * H);
    expect(businessTimeBetween(office, at('2026-11-22T00:00:00Z'), at('2026-11-29T00:00:00Z'))).toBe(40 * H);
  });

  it('counts every millisecond in a 24x7 calendar', () => {
    expect(addBusinessTime(always, 1000, 5000)).toBe(6000);
    expect(businessTimeBetween(always, 1000, 6000)).toBe(5000);
  });
});

describe('business time, as properties', () => {
  const calendars = fc.constantFrom(
    office,
    always,
    calendar('America/New_York', workdays('09:00-17:00')),
    allSundays('Europe/Berlin'),
    // West of UTC, with gap edges: Santiago skips midnight, New York 02:00-03:00.
    calendar('America/Santiago', { 0: ['00:00-24:00'], 6: ['00:00-24:00'] }),
    calendar('America/New_York', { 0: ['00:00-02:30', '02:30-03:00', '03:00-09:00'], 1: ['01:00-02:15'] }),
    calendar('Europe/Berlin', { 0: ['02:30-03:00', '04:00-05:00'], 3: ['09:00-10:00'] }),
    calendar('Asia/Kolkata', { 1: ['09:30-13:00', '14:00-18:30'], 6: ['10:00-12:00'] }),
  );
  const instants = fc.integer({ min: at('2026-01-01T00:00:00Z'), max: at('2027-12-31T00:00:00Z') });
  const durations = fc.integer({ min: 0, max: 120 * H });

  it('measures back exactly the business time it added', () => {
    fc.assert(
      fc.property(calendars, instants, durations, (cal, from, ms) => {
        expect(businessTimeBetween(cal, from, addBusinessTime(cal, from, ms))).toBe(ms);
      }),
    );
  });

  it('adds up: the time from a to c is the time from a to b plus from b to c', () => {
    fc.assert(
      fc.property(calendars, instants, durations, durations, (cal, a, x, y) => {
        const [b, c] = [a + x, a + x + y];
        expect(businessTimeBetween(cal, a, b) + businessTimeBetween(cal, b, c)).toBe(businessTimeBetween(cal, a, c));
      }),
    );
  });

  it('never answers a deadline before the start, and a longer target never ends earlier', () => {
    fc.assert(
      fc.property(calendars, instants, durations, durations, (cal, from, x, y) => {
        const [short, long] = x <= y ? [x, y] : [y, x];
        expect(addBusinessTime(cal, from, short)).toBeGreaterThanOrEqual(from);
        expect(addBusinessTime(cal, from, long)).toBeGreaterThanOrEqual(addBusinessTime(cal, from, short));
      }),
    );
  });
});
