import type { SlaCalendar, SlaPolicy } from './sla-policy.js';
import { HistoryAction } from '../tickets/history-action.js';
import type { TicketChanges } from '../tickets/ticket-changes.js';
import { clocksOfNewTicket, type SlaClock } from './sla-clock.js';
import { type HistoryWrite, isResponse, replayClocks } from './sla-replay.js';

const H = 3_600_000;
const M = 60_000;
const goal = (ms: number) => ({ text: `PT${ms / 1000}S`, ms });
const always: SlaCalendar = { name: 'always', always: true };
const policy: SlaPolicy = {
  file: 'test.yaml',
  warningBefore: goal(15 * M),
  priorities: {
    CRITICAL: { calendar: always, goals: { firstResponse: goal(15 * M), resolution: goal(H) } },
    HIGH: { calendar: always, goals: { firstResponse: goal(30 * M), resolution: goal(2 * H) } },
    MEDIUM: { calendar: always, goals: { firstResponse: goal(H), resolution: goal(8 * H) } },
    LOW: { calendar: always, goals: { firstResponse: goal(8 * H), resolution: goal(10 * H) } },
  },
};
const T = Date.parse('2026-11-23T09:00:00Z');
const requesterEmail = 'asker@example.com';
const update = (at: number, changes: TicketChanges): HistoryWrite => ({ at, action: HistoryAction.UPDATED, changes });
const of = (clocks: SlaClock[], metric: string, cycle?: number) =>
  clocks.find((clock) => clock.metric === metric && (cycle === undefined || clock.cycle === cycle));
const noComments = new Map();

describe('replayClocks', () => {
  const opened = clocksOfNewTicket(policy, { status: 'OPEN', priority: 'LOW' }, T);

  it('stops the clocks at the time a ticket was resolved, dropping the events not yet due then', () => {
    const writes = [update(T + 2 * H, { status: { from: 'OPEN', to: 'RESOLVED' } })];
    const { changed, nextDue } = replayClocks(policy, opened, { status: 'RESOLVED', priority: 'LOW', requesterEmail }, writes, noComments);
    expect(of(changed, 'resolution')).toMatchObject({ stoppedAt: T + 2 * H, elapsedMs: 2 * H, breachDueAt: null, warningDueAt: null });
    expect(of(changed, 'firstResponse')).toMatchObject({ stoppedAt: T + 2 * H, breachDueAt: null });
    expect(nextDue).toBeNull();
  });

  it('pauses both clocks from the time the ticket was merged, and resumes them with their time when it was unmerged', () => {
    const merged: HistoryWrite = {
      at: T + H,
      action: HistoryAction.MERGED,
      changes: { status: { from: 'OPEN', to: 'CLOSED' }, mergedInto: { from: null, to: 7 } },
    };
    const whileMerged = replayClocks(policy, opened, { status: 'CLOSED', priority: 'LOW', requesterEmail }, [merged], noComments);
    for (const metric of ['firstResponse', 'resolution']) {
      expect(of(whileMerged.changed, metric)).toMatchObject({ runningSince: null, stoppedAt: null, elapsedMs: H, breachDueAt: null });
    }
    expect(whileMerged.nextDue).toBeNull();
    const unmerged: HistoryWrite = {
      at: T + 20 * H,
      action: HistoryAction.UNMERGED,
      changes: { status: { from: 'CLOSED', to: 'OPEN' }, mergedInto: { from: 7, to: null } },
    };
    const after = replayClocks(policy, opened, { status: 'OPEN', priority: 'LOW', requesterEmail }, [merged, unmerged], noComments);
    // Eight hours of first response, one spent before the merge: due seven hours after the unmerge.
    expect(of(after.changed, 'firstResponse')).toMatchObject({ runningSince: T + 20 * H, elapsedMs: H, breachAt: T + 27 * H });
    expect(of(after.changed, 'resolution')).toMatchObject({ runningSince: T + 20 * H, elapsedMs: H, breachAt: T + 29 * H });
    expect(after.nextDue).toBe(T + 27 * H);
  });

  it('keeps a breach that came while the clock still ran, so it is sent', () => {
    const writes = [update(T + 11 * H, { status: { from: 'OPEN', to: 'RESOLVED' } })];
    const { changed } = replayClocks(policy, opened, { status: 'RESOLVED', priority: 'LOW', requesterEmail }, writes, noComments);
    expect(of(changed, 'resolution')).toMatchObject({ stoppedAt: T + 11 * H, breachDueAt: T + 10 * H });
    expect(of(changed, 'firstResponse')).toMatchObject({ breachDueAt: T + 8 * H });
  });

  it('pauses resolution from the time the ticket waited on the customer', () => {
    const writes = [update(T + H, { status: { from: 'OPEN', to: 'WAITING_ON_CUSTOMER' } })];
    const { changed, nextDue } = replayClocks(
      policy,
      opened,
      { status: 'WAITING_ON_CUSTOMER', priority: 'LOW', requesterEmail },
      writes,
      noComments,
    );
    expect(of(changed, 'resolution')).toMatchObject({ runningSince: null, stoppedAt: null, elapsedMs: H, breachDueAt: null });
    expect(nextDue).toBeNull();
  });

  it('re-times with a raised priority at the time it was raised, from the state before the writes', () => {
    const writes = [
      update(T + 10 * M, { title: { from: 'a', to: 'b' } }),
      update(T + 20 * M, { priority: { from: 'LOW', to: 'HIGH' }, status: { from: 'OPEN', to: 'IN_PROGRESS' } }),
    ];
    const { changed, nextDue } = replayClocks(
      policy,
      opened,
      { status: 'IN_PROGRESS', priority: 'HIGH', requesterEmail },
      writes,
      noComments,
    );
    expect(of(changed, 'resolution')).toMatchObject({
      goal: goal(2 * H),
      runningSince: T + 20 * M,
      elapsedMs: 20 * M,
      breachAt: T + 2 * H,
    });
    expect(of(changed, 'firstResponse')).toMatchObject({ stoppedAt: T + 20 * M });
    expect(nextDue).toBe(T + 2 * H);
  });

  it('starts a new cycle for a reopen and keeps the completed one', () => {
    const writes = [
      update(T + H, { status: { from: 'OPEN', to: 'RESOLVED' } }),
      update(T + 2 * H, { status: { from: 'RESOLVED', to: 'IN_PROGRESS' } }),
    ];
    const { changed } = replayClocks(policy, opened, { status: 'IN_PROGRESS', priority: 'LOW', requesterEmail }, writes, noComments);
    expect(of(changed, 'resolution', 1)).toMatchObject({ stoppedAt: T + H });
    expect(of(changed, 'resolution', 2)).toMatchObject({ startedAt: T + 2 * H, runningSince: T + 2 * H, breachAt: T + 12 * H });
  });

  it('gives a ticket without clocks those of its creation, then replays what followed', () => {
    const writes: HistoryWrite[] = [
      {
        at: T,
        action: HistoryAction.CREATED,
        changes: {
          status: { from: null, to: 'OPEN' },
          priority: { from: null, to: 'CRITICAL' },
          requesterEmail: { from: null, to: requesterEmail },
        },
      },
      { at: T + 5 * M, action: HistoryAction.COMMENTED, changes: { comment: { from: null, to: 7 } } },
    ];
    const comments = new Map([[7, { author: 'agent@example.com', visibility: 'PUBLIC' }]]);
    const { changed, nextDue } = replayClocks(policy, [], { status: 'OPEN', priority: 'CRITICAL', requesterEmail }, writes, comments);
    expect(of(changed, 'firstResponse')).toMatchObject({ startedAt: T, stoppedAt: T + 5 * M, elapsedMs: 5 * M });
    expect(of(changed, 'resolution')).toMatchObject({ startedAt: T, runningSince: T, breachAt: T + H });
    expect(nextDue).toBe(T + H);
  });

  it('leaves a ticket without clocks and without its CREATED entry as it is', () => {
    const writes = [update(T + H, { status: { from: 'OPEN', to: 'RESOLVED' } })];
    expect(replayClocks(policy, [], { status: 'RESOLVED', priority: 'LOW', requesterEmail }, writes, noComments)).toEqual({
      changed: [],
      nextDue: null,
    });
  });

  it('changes nothing for writes that touched neither status nor priority', () => {
    const writes = [update(T + H, { title: { from: 'a', to: 'b' } })];
    expect(replayClocks(policy, opened, { status: 'OPEN', priority: 'LOW', requesterEmail }, writes, noComments).changed).toEqual([]);
  });
});

describe('isResponse', () => {
  it('is a public comment by someone other than the requester, compared without case', () => {
    expect(isResponse({ author: 'agent@example.com', visibility: 'PUBLIC' }, requesterEmail)).toBe(true);
    expect(isResponse({ author: 'ASKER@example.com', visibility: 'PUBLIC' }, requesterEmail)).toBe(false);
    expect(isResponse({ author: 'agent@example.com', visibility: 'INTERNAL' }, requesterEmail)).toBe(false);
    expect(isResponse({ author: null, visibility: 'PUBLIC' }, requesterEmail)).toBe(false);
  });
});
