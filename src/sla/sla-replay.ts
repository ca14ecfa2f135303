import type { SlaPolicy, SlaPriority } from './sla-policy.js';
import { HistoryAction } from '../tickets/history-action.js';
import type { HistoryChange } from '../tickets/history-entry.js';
import type { AddedComment } from '../tickets/ticket-write-hooks.js';
import {
  clocksAfterMerge,
  clocksAfterResponse,
  clocksAfterUnmerge,
  clocksAfterUpdate,
  clocksOfNewTicket,
  nextBreachTime,
  type SlaClock,
  type SlaTicketState,
} from './sla-clock.js';

/** A history entry of a ticket as the replay reads it: when (epoch milliseconds), and what it records. */
export type HistoryWrite = { at: number } & HistoryChange;

/** A comment as the clocks judge it: the same fields a live comment gives them. */
export type ReplayComment = AddedComment;

/** The ticket now, as far as its clocks care. */
export interface CurrentTicket extends SlaTicketState {
  requesterEmail: string;
}

/** What a replay leaves: every clock it changed or started, and the ticket's next breach time. */
export interface Replayed {
  changed: SlaClock[];
  nextDue: number | null;
}

/**
 * The clocks of a ticket brought up to date with writes they did not see (made while SLA was off): each write is
 * applied at the time it was made, with the rules a write applies while SLA is on, so the time in between counts as
 * those rules would have counted it. `latest` holds the latest cycle of each metric; empty, the ticket gets its
 * clocks from its CREATED entry, which `writes` must then hold. `writes` are in the order they were made; the state
 * they start from is `current` with their changes undone.
 */
export function replayClocks(
  policy: SlaPolicy,
  latest: readonly SlaClock[],
  current: CurrentTicket,
  writes: readonly HistoryWrite[],
  comments: ReadonlyMap<number, ReplayComment>,
): Replayed {
  const changed = new Map<string, SlaClock>();
  const byMetric = new Map(latest.map((clock) => [clock.metric, clock]));
  const apply = (clocks: SlaClock[]) => {
    for (const clock of clocks) {
      changed.set(`${clock.metric}/${clock.cycle}`, clock);
      byMetric.set(clock.metric, clock);
    }
  };

  let state = stateBefore(current, writes);
  let pending = writes;
  if (latest.length === 0) {
    const createdAt = writes.findIndex((write) => write.action === HistoryAction.CREATED);
    if (createdAt < 0) return { changed: [], nextDue: null };
    state = next(state, writes[createdAt]);
    apply(clocksOfNewTicket(policy, state, writes[createdAt].at));
    pending = writes.slice(createdAt + 1);
  }

  for (const write of pending) {
    if (write.action === HistoryAction.COMMENTED) {
      const comment = comments.get(write.changes.comment.to);
      if (comment && isResponse(comment, state.requesterEmail)) apply(clocksAfterResponse([...byMetric.values()], policy, write.at));
      continue;
    }
    const after = next(state, write);
    // A merged ticket's clocks pause and an unmerged one's go on (its status change is the merge's, not an update's).
    if ((write.action === HistoryAction.MERGED || write.action === HistoryAction.UNMERGED) && write.changes.mergedInto) {
      const clocks = [...byMetric.values()];
      apply(
        write.action === HistoryAction.MERGED
          ? clocksAfterMerge(policy, clocks, write.at)
          : clocksAfterUnmerge(policy, clocks, after, write.at),
      );
      state = after;
      continue;
    }
    if (after.status !== state.status || after.priority !== state.priority)
      apply(clocksAfterUpdate(policy, [...byMetric.values()], state, after, write.at));
    state = after;
  }
  return { changed: [...changed.values()], nextDue: nextBreachTime([...byMetric.values()]) };
}

/** A public comment by someone other than the requester (compared without case) answers the ticket. */
export function isResponse(comment: ReplayComment, requesterEmail: string): boolean {
  return comment.visibility === 'PUBLIC' && !!comment.author && comment.author.toLowerCase() !== requesterEmail.toLowerCase();
}

/** The ticket as it was before these writes: their changes undone, the latest first. */
function stateBefore(current: CurrentTicket, writes: readonly HistoryWrite[]): CurrentTicket {
  let state = { ...current };
  for (const write of [...writes].reverse()) state = { ...state, ...valuesOf(write, 'from') };
  return state;
}

function next(state: CurrentTicket, write: HistoryWrite): CurrentTicket {
  return { ...state, ...valuesOf(write, 'to') };
}

function valuesOf(write: HistoryWrite, side: 'from' | 'to'): Partial<CurrentTicket> {
  // A merge closes its sources and an unmerge reopens them: status changes like an update's.
  const { action } = write;
  if (
    action !== HistoryAction.CREATED &&
    action !== HistoryAction.UPDATED &&
    action !== HistoryAction.MERGED &&
    action !== HistoryAction.UNMERGED
  )
    return {};
  const values: Partial<CurrentTicket> = {};
  const status = write.changes.status?.[side];
  const priority = write.changes.priority?.[side];
  const requesterEmail = write.changes.requesterEmail?.[side];
  if (typeof status === 'string') values.status = status;
  if (typeof priority === 'string') values.priority = priority as SlaPriority;
  if (typeof requesterEmail === 'string') values.requesterEmail = requesterEmail;
  return values;
}
