import { SLA_METRICS, type SlaPolicy, type SlaPriority } from './sla-policy.js';
import { isWithinHours } from './business-time.js';
import type { SlaCycleResponse, SlaOngoingCycleResponse, SlaResponse } from './dto/sla-response.dto.js';
import { formatIsoDuration } from './iso-duration.js';
import { calendarsOf, elapsedAt, isRunning, isStopped, type SlaClock } from './sla-clock.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** A ticket's clocks in Jira Service Management's shape, as of `now`. */
export function slaView(policy: SlaPolicy, priority: SlaPriority, clocks: readonly SlaClock[], now: number): SlaResponse {
  const calendars = calendarsOf(policy);
  const { calendar, goals } = policy.priorities[priority];
  return {
    priority,
    calendar: calendar.name,
    metrics: SLA_METRICS.map((name) => {
      const cycles = clocks.filter((clock) => clock.metric === name).sort((a, b) => a.cycle - b.cycle);
      const ongoing = cycles.find((clock) => !isStopped(clock));
      return {
        name,
        goal: goals[name].text,
        ongoingCycle: ongoing ? ongoingCycle(ongoing, now, calendars) : null,
        completedCycles: cycles.filter(isStopped).map(completedCycle),
      };
    }),
  };
}

function ongoingCycle(clock: SlaClock, now: number, calendars: ReturnType<typeof calendarsOf>): SlaOngoingCycleResponse {
  const elapsed = elapsedAt(clock, now, calendars);
  return {
    cycle: clock.cycle,
    startTime: iso(clock.startedAt),
    breachTime: isRunning(clock) && clock.breachAt !== null ? iso(clock.breachAt) : null,
    breached: elapsed >= clock.goal.ms,
    paused: !isRunning(clock),
    withinCalendarHours: isWithinHours(calendars(clock.calendar), now),
    goal: clock.goal.text,
    elapsedTime: formatIsoDuration(elapsed),
    remainingTime: formatIsoDuration(clock.goal.ms - elapsed),
  };
}

function completedCycle(clock: SlaClock): SlaCycleResponse {
  return {
    cycle: clock.cycle,
    startTime: iso(clock.startedAt),
    stopTime: iso(clock.stoppedAt!),
    breached: clock.elapsedMs >= clock.goal.ms,
    goal: clock.goal.text,
    elapsedTime: formatIsoDuration(clock.elapsedMs),
  };
}
