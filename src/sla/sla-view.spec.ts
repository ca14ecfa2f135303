import type { SlaCalendar, SlaPolicy } from './sla-policy.js';
import { clocksOfNewTicket } from './sla-clock.js';
import { slaView } from './sla-view.js';

const always: SlaCalendar = { name: 'always', always: true };
const goal = (text: string, ms: number) => ({ text, ms });
const priority = { calendar: always, goals: { firstResponse: goal('PT1H', 3_600_000), resolution: goal('PT8H', 8 * 3_600_000) } };
const policy: SlaPolicy = {
  file: 'test.yaml',
  warningBefore: goal('PT0S', 0),
  priorities: { LOW: priority, MEDIUM: priority, HIGH: priority, CRITICAL: priority },
};
const T = Date.parse('2026-11-23T09:00:00Z');

describe('slaView', () => {
  it("answers Jira's shape, with a negative remaining time once breached", () => {
    const view = slaView(policy, 'HIGH', clocksOfNewTicket(policy, { status: 'OPEN', priority: 'HIGH' }, T), T + 65 * 60_000);
    expect(view.metrics[0]).toEqual({
      name: 'firstResponse',
      goal: 'PT1H',
      ongoingCycle: {
        cycle: 1,
        startTime: '2026-11-23T09:00:00.000Z',
        breachTime: '2026-11-23T10:00:00.000Z',
        breached: true,
        paused: false,
        withinCalendarHours: true,
        goal: 'PT1H',
        elapsedTime: 'PT1H5M',
        remainingTime: '-PT5M',
      },
      completedCycles: [],
    });
    expect(view.metrics[1].ongoingCycle).toMatchObject({ breached: false, remainingTime: 'PT6H55M' });
  });
});
