import type { SlaCalendar, SlaPolicy } from './sla-policy.js';
import {
  nextBreachTime,
  clocksAfterResponse,
  clocksAfterUpdate,
  clocksOfNewTicket,
  elapsedAt,
  calendarsOf,
  isBreached,
  type SlaClock,
} from './sla-clock.js';

const H = 3_600_000;
const M = 60_000;
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const goal = (ms: number) => ({ text: `PT${ms / 1000}S`, ms });

const always: SlaCalendar = { name: 'always', always: true };
const workday = [
  { start: 8 * 60, end: 12 * 60 },
  { start: 13 * 60, end: 17 * 60 },
];
const office: SlaCalendar = {
  name: 'office',
  always: false,
  timeZone: 'Europe/Berlin',
  week: [[], workday, workday, workday, workday, workday, []],
  holidays: new Set(),
};

const policy: SlaPolicy = {
  file: 'test.yaml',
  warningBefore: goal(15 * M),
  priorities: {
    CRITICAL: { calendar: always, goals: { firstResponse: goal(15 * M), resolution: goal(H) } },
    HIGH: { calendar: always, goals: { firstResponse: goal(30 * M), resolution: goal(2 * H) } },
    MEDIUM: { calendar: office, goals: { firstResponse: goal(4 * H), resolution: goal(8 * H) } },
    LOW: { calendar: always, goals: { firstResponse: goal(8 * H), resolution: goal(4 * H) } },
  },
};
const calendars = calendarsOf(policy);
const T = at('2026-11-23T09:00:00Z');

/** The latest cycle of each metric after the updates, applied one after another. */
function apply(start: SlaClock[], ...updates: Array<[from: object, to: object, at: number]>): SlaClock[] {
  let clocks = start;
  for (const [from, to, now] of updates) {
    const changed = clocksAfterUpdate(policy, clocks, from as never, to as never, now);
    clocks = clocks.map((clock) => changed.find((c) => c.metric === clock.metric) ?? clock);
    for (const c of changed) if (!clocks.includes(c)) clocks = clocks.map((clock) => (clock.metric === c.metric ? c : clock));
  }
  return clocks;
}
const resolution = (clocks: SlaClock[]) => clocks.find((clock) => clock.metric === 'resolution')!;
const firstResponse = (clocks: SlaClock[]) => clocks.find((clock) => clock.metric === 'firstResponse')!;

describe('SLA clocks', () => {
  it('starts both metrics on create, due after their goals, with warnings warningBefore earlier', () => {
    const clocks = clocksOfNewTicket(policy, { status: 'OPEN', priority: 'HIGH' }, T);
    expect(clocks.map((clock) => [clock.metric, clock.cycle, iso(clock.breachAt), iso(clock.warningDueAt)])).toEqual([
      ['firstResponse', 1, '2026-11-23T09:30:00.000Z', '2026-11-23T09:15:00.000Z'],
      ['resolution', 1, '2026-11-23T11:00:00.000Z', '2026-11-23T10:45:00.000Z'],
    ]);
  });

  it('completes firstResponse when the status first leaves OPEN, and on a response comment', () => {
    const clocks = clocksOfNewTicket(policy, { status: 'OPEN', priority: 'HIGH' }, T);
    const moved = apply(clocks, [{ status: 'OPEN', priority: 'HIGH' }, { status: 'IN_PROGRESS', priority: 'HIGH' }, T + 10 * M]);
    expect([iso(firstResponse(moved).stoppedAt), firstResponse(moved).elapsedMs, firstResponse(moved).breachDueAt]).toEqual([
      iso(T + 10 * M),
      10 * M,
      null,
    ]);
    const answered = clocksAfterResponse(clocks, policy, T + 5 * M);
    expect(answered).toHaveLength(1);
    expect(answered[0]).toMatchObject({ metric: 'firstResponse', stoppedAt: T + 5 * M, elapsedMs: 5 * M });
    expect(clocksAfterResponse(answered, policy, T + 6 * M)).toEqual([]);
  });

  it('pauses resolution while WAITING_ON_CUSTOMER and moves the deadline by the time paused', () => {
    const clocks = clocksOfNewTicket(policy, { status: 'IN_PROGRESS', priority: 'HIGH' }, T);
    const after = apply(
      clocks,
      [{ status: 'IN_PROGRESS', priority: 'HIGH' }, { status: 'WAITING_ON_CUSTOMER', priority: 'HIGH' }, T + 30 * M],
      [{ status: 'WAITING_ON_CUSTOMER', priority: 'HIGH' }, { status: 'IN_PROGRESS', priority: 'HIGH' }, T + 90 * M],
    );
    expect(iso(resolution(after).breachAt)).toBe(iso(T + 3 * H));
    expect(elapsedAt(resolution(after), T + 2 * H, calendars)).toBe(60 * M);
  });

  it('counts a pause that spans closing time by office hours only', () => {
    // Monday 15:00 CET created MEDIUM (8 h), waiting from 16:00, back on Tuesday 10:00: 7 h left from then.
    const monday15 = at('2026-11-23T14:00:00Z');
    const clocks = clocksOfNewTicket(policy, { status: 'IN_PROGRESS', priority: 'MEDIUM' }, monday15);
    const after = apply(
      clocks,
      [{ status: 'IN_PROGRESS', priority: 'MEDIUM' }, { status: 'WAITING_ON_CUSTOMER', priority: 'MEDIUM' }, at('2026-11-23T15:00:00Z')],
      [{ status: 'WAITING_ON_CUSTOMER', priority: 'MEDIUM' }, { status: 'IN_PROGRESS', priority: 'MEDIUM' }, at('2026-11-24T09:00:00Z')],
    );
    expect(resolution(after).elapsedMs).toBe(H);
    // Tuesday 10-12 and 13-17 is 6 h; the last hour is Wednesday 08:00-09:00 CET.
    expect(iso(resolution(after).breachAt)).toBe('2026-11-25T08:00:00.000Z');
  });

  it('starts a new resolution cycle with the full goal on a reopen, keeping the completed one', () => {
    const clocks = clocksOfNewTicket(policy, { status: 'IN_PROGRESS', priority: 'HIGH' }, T);
    const resolved = apply(clocks, [{ status: 'IN_PROGRESS', priority: 'HIGH' }, { status: 'RESOLVED', priority: 'HIGH' }, T + H]);
    expect(resolution(resolved)).toMatchObject({ cycle: 1, stoppedAt: T + H, elapsedMs: H });
    const reopened = clocksAfterUpdate(
      policy,
      resolved,
      { status: 'RESOLVED', priority: 'HIGH' } as never,
      { status: 'IN_PROGRESS', priority: 'HIGH' } as never,
      T + 5 * H,
    );
    expect(reopened).toHaveLength(1);
    expect(reopened[0]).toMatchObject({ metric: 'resolution', cycle: 2, elapsedMs: 0, breachAt: T + 7 * H });
  });

  it('re-times a priority change before the deadline, keeping the time spent', () => {
    const clocks = clocksOfNewTicket(policy, { status: 'IN_PROGRESS', priority: 'HIGH' }, T);
    const lowered = apply(clocks, [{ status: 'IN_PROGRESS', priority: 'HIGH' }, { status: 'IN_PROGRESS', priority: 'LOW' }, T + 30 * M]);
    // LOW: 4 h, 30 min already spent.
    expect([iso(resolution(lowered).breachAt), iso(resolution(lowered).warningDueAt)]).toEqual([iso(T + 4 * H), iso(T + 4 * H - 15 * M)]);
    expect(isBreached(resolution(lowered), T + 3 * H, calendars)).toBe(false);
  });

  it('breaches at once, with no warning, when a priority change finds the new goal already exceeded', () => {
    const clocks = clocksOfNewTicket(policy, { status: 'IN_PROGRESS', priority: 'LOW' }, T);
    const raised = apply(clocks, [{ status: 'IN_PROGRESS', priority: 'LOW' }, { status: 'IN_PROGRESS', priority: 'CRITICAL' }, T + 2 * H]);
    expect(resolution(raised)).toMatchObject({ breachAt: T + 2 * H, breachDueAt: T + 2 * H, warningDueAt: null, goal: goal(H) });
    expect(isBreached(resolution(raised), T + 2 * H, calendars)).toBe(true);
  });

  it('drops the events not yet due when a clock stops, and keeps those that fell due while it ran', () => {
    const clocks = clocksOfNewTicket(policy, { status: 'IN_PROGRESS', priority: 'HIGH' }, T);
    const early = apply(clocks, [{ status: 'IN_PROGRESS', priority: 'HIGH' }, { status: 'RESOLVED', priority: 'HIGH' }, T + H]);
    expect([resolution(early).warningDueAt, resolution(early).breachDueAt]).toEqual([null, null]);
    const late = apply(clocks, [{ status: 'IN_PROGRESS', priority: 'HIGH' }, { status: 'RESOLVED', priority: 'HIGH' }, T + 3 * H]);
    expect([iso(resolution(late).warningDueAt), iso(resolution(late).breachDueAt)]).toEqual([iso(T + 105 * M), iso(T + 2 * H)]);
  });

  it('keeps a breach already sent when a write stops the clock a moment before the breach time', () => {
    const [, running] = clocksOfNewTicket(policy, { status: 'IN_PROGRESS', priority: 'HIGH' }, T);
    // The detector sent the breach at T + 2 h (by its clock) and cleared breachDueAt; a write that read the time
    // before waiting for the row lock now resolves the ticket "at" T + 2 h - 100 ms.
    const sent = { ...running, warningDueAt: null, breachDueAt: null };
    const resolved = apply(
      [sent],
      [{ status: 'IN_PROGRESS', priority: 'HIGH' }, { status: 'RESOLVED', priority: 'HIGH' }, T + 2 * H - 100],
    );
    expect(isBreached(resolution(resolved), T + 2 * H - 100, calendars)).toBe(true);
    const unsent = apply(
      [running],
      [{ status: 'IN_PROGRESS', priority: 'HIGH' }, { status: 'RESOLVED', priority: 'HIGH' }, T + 2 * H - 100],
    );
    expect(isBreached(resolution(unsent), T + 2 * H - 100, calendars)).toBe(false);
  });

  it('keeps an event already due but not yet sent when a priority change re-times the clock', () => {
    const clocks = clocksOfNewTicket(policy, { status: 'IN_PROGRESS', priority: 'HIGH' }, T);
    // HIGH resolution breaches at T + 2 h; the detector has not got to it when the priority is lowered at T + 2 h + 1 s.
    const lowered = apply(clocks, [
      { status: 'IN_PROGRESS', priority: 'HIGH' },
      { status: 'IN_PROGRESS', priority: 'LOW' },
      T + 2 * H + 1000,
    ]);
    expect([iso(resolution(lowered).warningDueAt), iso(resolution(lowered).breachDueAt)]).toEqual([iso(T + 105 * M), iso(T + 2 * H)]);
    // LOW's breach, still to come, is the one timed.
    expect(iso(resolution(lowered).breachAt)).toBe(iso(T + 4 * H));
  });

  it('breaches a paused clock at once when a priority change makes its time spent exceed the new goal, and keeps it due on close', () => {
    const clocks = clocksOfNewTicket(policy, { status: 'IN_PROGRESS', priority: 'LOW' }, T);
    const waiting = { status: 'WAITING_ON_CUSTOMER', priority: 'LOW' };
    const raised = apply(
      clocks,
      [{ status: 'IN_PROGRESS', priority: 'LOW' }, waiting, T + 90 * M],
      [waiting, { status: 'WAITING_ON_CUSTOMER', priority: 'CRITICAL' }, T + 2 * H],
    );
    expect(resolution(raised)).toMatchObject({ runningSince: null, elapsedMs: 90 * M, breachDueAt: T + 2 * H });
    const closed = apply(raised, [
      { status: 'WAITING_ON_CUSTOMER', priority: 'CRITICAL' },
      { status: 'CLOSED', priority: 'CRITICAL' },
      T + 3 * H,
    ]);
    expect(resolution(closed)).toMatchObject({ stoppedAt: T + 3 * H, breachDueAt: T + 2 * H });
  });

  it('records a ticket created RESOLVED as completed cycles and one created WAITING_ON_CUSTOMER as paused', () => {
    expect(clocksOfNewTicket(policy, { status: 'RESOLVED', priority: 'HIGH' }, T).map((clock) => clock.stoppedAt)).toEqual([T, T]);
    const waiting = clocksOfNewTicket(policy, { status: 'WAITING_ON_CUSTOMER', priority: 'HIGH' }, T);
    expect(resolution(waiting)).toMatchObject({ runningSince: null, stoppedAt: null, warningDueAt: null, breachDueAt: null });
    expect(nextBreachTime(waiting)).toBeNull();
  });
});
