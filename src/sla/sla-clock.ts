import type { SlaCalendar, SlaGoal, SlaMetricName, SlaPolicy, SlaPriority } from './sla-policy.js';
import { addBusinessTime, businessTimeBetween } from './business-time.js';

/**
 * One cycle of one metric of a ticket. Running: `runningSince` is set and `elapsedMs` counts the business time up to
 * it. Paused: neither `runningSince` nor `stoppedAt`. Completed: `stoppedAt`. The two due times are the detector's
 * to-do: the instant its warning or breach event is due, null once handled or when none is to come.
 */
export interface SlaClock {
  metric: SlaMetricName;
  cycle: number;
  calendar: string;
  goal: SlaGoal;
  startedAt: number;
  stoppedAt: number | null;
  elapsedMs: number;
  runningSince: number | null;
  /** When it breaches (or breached) as last timed while running; the next resume re-times it. */
  breachAt: number | null;
  warningDueAt: number | null;
  breachDueAt: number | null;
}

/** The statuses and priority of a ticket, as far as its clocks care. */
export interface SlaTicketState {
  status: string;
  priority: SlaPriority;
}

const DONE = new Set(['RESOLVED', 'CLOSED']);

export type Calendars = (name: string) => SlaCalendar;

/** The policy's calendars by name, for clocks that name theirs (start-up checks that every clock's is there, SlaService). */
export function calendarsOf(policy: SlaPolicy): Calendars {
  const byName = new Map(Object.values(policy.priorities).map(({ calendar }) => [calendar.name, calendar]));
  return (name) => {
    const calendar = byName.get(name);
    if (!calendar) throw new Error(`SLA calendar "${name}" is not used by any priority of ${policy.file}`);
    return calendar;
  };
}

export function isRunning(clock: SlaClock): boolean {
  return clock.runningSince !== null;
}

export function isStopped(clock: SlaClock): boolean {
  return clock.stoppedAt !== null;
}

/** Business time spent so far (up to `now` while running). */
export function elapsedAt(clock: SlaClock, now: number, calendars: Calendars): number {
  if (clock.runningSince === null) return clock.elapsedMs;
  return clock.elapsedMs + businessTimeBetween(calendars(clock.calendar), clock.runningSince, now);
}

/** Breached once the time spent reaches the goal. */
export function isBreached(clock: SlaClock, now: number, calendars: Calendars): boolean {
  return elapsedAt(clock, now, calendars) >= clock.goal.ms;
}

/** The clocks of a new ticket: both metrics' first cycle, started, paused or completed at once by its status. */
export function clocksOfNewTicket(policy: SlaPolicy, ticket: SlaTicketState, now: number): SlaClock[] {
  const firstResponse = started(policy, 'firstResponse', 1, ticket.priority, now);
  const resolution = started(policy, 'resolution', 1, ticket.priority, now);
  return [
    ticket.status === 'OPEN' ? firstResponse : stop(firstResponse, now, calendarsOf(policy)),
    applyStatus(policy, resolution, ticket.status, now),
  ];
}

/**
 * The clocks an update leaves, given the latest cycle of each metric: the changed ones and new cycles only.
 * firstResponse stops when the status first leaves OPEN; resolution pauses in WAITING_ON_CUSTOMER, stops in RESOLVED
 * or CLOSED, and a move out of those starts its next cycle. A priority change re-times every clock not completed
 * with the new priority's goal, keeping the time spent.
 */
export function clocksAfterUpdate(
  policy: SlaPolicy,
  latest: readonly SlaClock[],
  before: SlaTicketState,
  after: SlaTicketState,
  now: number,
): SlaClock[] {
  const calendars = calendarsOf(policy);
  const changed: SlaClock[] = [];
  for (const clock of latest) {
    let next = clock;
    if (clock.metric === 'firstResponse' && !isStopped(clock) && after.status !== 'OPEN') next = stop(clock, now, calendars);
    if (clock.metric === 'resolution') {
      if (isStopped(clock) && DONE.has(before.status) && !DONE.has(after.status)) {
        next = applyStatus(policy, started(policy, 'resolution', clock.cycle + 1, after.priority, now), after.status, now);
      } else if (!isStopped(clock)) {
        next = applyStatus(policy, clock, after.status, now);
      }
    }
    if (before.priority !== after.priority && !isStopped(next) && next.cycle === clock.cycle)
      next = retimed(policy, next, after.priority, now);
    if (next !== clock) changed.push(next);
  }
  return changed;
}

/**
 * A ticket merged into another (docs/api.md#merge): its clocks not completed pause, whatever its status, so that it never
 * breaches while merged and an unmerge finds them with the time they had. A merge is neither an answer nor a resolution.
 */
export function clocksAfterMerge(policy: SlaPolicy, latest: readonly SlaClock[], now: number): SlaClock[] {
  return latest.filter((clock) => isRunning(clock)).map((clock) => halt(clock, now, calendarsOf(policy)));
}

/** A ticket unmerged: its clocks not completed go on as its restored status has them (firstResponse while OPEN). */
export function clocksAfterUnmerge(policy: SlaPolicy, latest: readonly SlaClock[], after: SlaTicketState, now: number): SlaClock[] {
  return latest
    .filter((clock) => !isStopped(clock) && !isRunning(clock))
    .flatMap((clock) => {
      if (clock.metric === 'resolution') return [applyStatus(policy, clock, after.status, now)];
      return after.status === 'OPEN' ? [resumed(policy, clock, now)] : [stop(clock, now, calendarsOf(policy))];
    })
    .filter((clock) => !latest.includes(clock));
}

/** firstResponse after a public comment by someone other than the requester: completed, if it was not. */
export function clocksAfterResponse(latest: readonly SlaClock[], policy: SlaPolicy, now: number): SlaClock[] {
  return latest
    .filter((clock) => clock.metric === 'firstResponse' && !isStopped(clock))
    .map((clock) => stop(clock, now, calendarsOf(policy)));
}

function started(policy: SlaPolicy, metric: SlaMetricName, cycle: number, priority: SlaPriority, now: number): SlaClock {
  const { calendar, goals } = policy.priorities[priority];
  const clock: SlaClock = {
    metric,
    cycle,
    calendar: calendar.name,
    goal: goals[metric],
    startedAt: now,
    stoppedAt: null,
    elapsedMs: 0,
    runningSince: now,
    breachAt: null,
    warningDueAt: null,
    breachDueAt: null,
  };
  return timed(policy, clock, now);
}

/** Resolution's clock under a status: paused while waiting on the customer, completed when done, running otherwise. */
function applyStatus(policy: SlaPolicy, clock: SlaClock, status: string, now: number): SlaClock {
  const calendars = calendarsOf(policy);
  if (DONE.has(status)) return stop(clock, now, calendars);
  if (status === 'WAITING_ON_CUSTOMER') return isRunning(clock) ? halt(clock, now, calendars) : clock;
  return isRunning(clock) ? clock : resumed(policy, clock, now);
}

function resumed(policy: SlaPolicy, clock: SlaClock, now: number): SlaClock {
  return timed(policy, { ...clock, runningSince: now }, now);
}

/**
 * Paused: the time spent is counted up to now (breachAt stays, the last one timed). An event whose time came while it
 * ran is still sent; later ones are not. A breach already sent (a running clock's breachDueAt is cleared only by
 * the detector) counts as spent in full, even when `now` is a little earlier than the detector's clock: a write
 * that waited for the row lock, or another replica's clock, must not undo a breach the world was told about.
 */
function halt(clock: SlaClock, now: number, calendars: Calendars): SlaClock {
  const due = (at: number | null) => (at !== null && at <= now ? at : null);
  const breachSent = isRunning(clock) && clock.breachDueAt === null && clock.breachAt !== null;
  const elapsed = elapsedAt(clock, now, calendars);
  return {
    ...clock,
    elapsedMs: breachSent ? Math.max(elapsed, clock.goal.ms) : elapsed,
    runningSince: null,
    warningDueAt: due(clock.warningDueAt),
    breachDueAt: due(clock.breachDueAt),
  };
}

function stop(clock: SlaClock, now: number, calendars: Calendars): SlaClock {
  return { ...halt(clock, now, calendars), stoppedAt: now };
}

/**
 * A clock with the new priority's goal and calendar; the time spent so far is kept. An event already due and not yet
 * sent stays due at its time (it happened; the unique key of ticket_sla_events keeps it to one per cycle).
 */
function retimed(policy: SlaPolicy, clock: SlaClock, priority: SlaPriority, now: number): SlaClock {
  const { calendar, goals } = policy.priorities[priority];
  const calendars = calendarsOf(policy);
  const spent = isRunning(clock) ? { elapsedMs: elapsedAt(clock, now, calendars), runningSince: now } : {};
  const next = timed(policy, { ...clock, ...spent, calendar: calendar.name, goal: goals[clock.metric] }, now);
  const kept = (old: number | null, fresh: number | null) => (old !== null && old <= now ? old : fresh);
  return { ...next, warningDueAt: kept(clock.warningDueAt, next.warningDueAt), breachDueAt: kept(clock.breachDueAt, next.breachDueAt) };
}

/**
 * The breach and warning times of a running clock, from the time still left (a paused one has none, unless its goal
 * is already spent). A goal
 * already exceeded breaches now, with no warning first; a warning whose time has passed is due now.
 */
function timed(policy: SlaPolicy, clock: SlaClock, now: number): SlaClock {
  // A paused clock whose new goal is already spent has breached: its breach is due now (docs/sla.md).
  if (!isRunning(clock)) return clock.elapsedMs >= clock.goal.ms ? { ...clock, breachAt: now, breachDueAt: now } : clock;
  const calendar = calendarsOf(policy)(clock.calendar);
  const since = clock.runningSince!;
  const left = clock.goal.ms - clock.elapsedMs;
  if (left <= 0) return { ...clock, breachAt: now, breachDueAt: now, warningDueAt: null };
  const breachAt = addBusinessTime(calendar, since, left);
  const warnIn = left - policy.warningBefore.ms;
  const warningDueAt = policy.warningBefore.ms === 0 ? null : warnIn > 0 ? addBusinessTime(calendar, since, warnIn) : now;
  return { ...clock, breachAt, breachDueAt: breachAt, warningDueAt };
}

/** The ticket's next breach time: the earliest of its running clocks', or null when none runs. */
export function nextBreachTime(clocks: readonly SlaClock[]): number | null {
  const times = clocks.filter(isRunning).map((clock) => clock.breachAt!);
  return times.length > 0 ? Math.min(...times) : null;
}
