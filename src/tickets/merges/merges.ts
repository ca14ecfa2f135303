/** Rules of merging tickets (docs/api.md#merge), apart from their storage. */

/** The most sources one merge takes: each is locked and written in the merge's one transaction. */
export const MERGE_SOURCES_MAX = 100;

/** The people of a ticket: its requester and its participants, in canonical form. */
export interface TicketPeople {
  requester: string;
  participants: readonly string[];
}

/**
 * What each source brings to the target's participants: its requester and participants that the target does not list
 * yet (as requester or participant), each address once, brought by the first source that names it, in order.
 */
export function participantsGained(target: TicketPeople, sources: readonly TicketPeople[]): string[][] {
  const known = new Set([target.requester, ...target.participants]);
  return sources.map((source) =>
    [source.requester, ...source.participants].filter((address) => !known.has(address) && known.add(address) !== undefined),
  );
}

/**
 * The target's participants once a source is unmerged: those it brought leave, unless a source still merged into the
 * target names them too (as its requester or participant), which then counts as having brought them (`handedOver`, by
 * index of `stillMerged`); the others keep their places.
 */
export function participantsAfterUnmerge(
  current: readonly string[],
  gained: readonly string[],
  stillMerged: readonly TicketPeople[],
): { participants: string[]; handedOver: Map<number, string[]> } {
  const handedOver = new Map<number, string[]>();
  const leaving = new Set<string>();
  for (const address of gained) {
    const heir = stillMerged.findIndex((source) => source.requester === address || source.participants.includes(address));
    if (heir < 0) leaving.add(address);
    else handedOver.set(heir, [...(handedOver.get(heir) ?? []), address]);
  }
  return { participants: current.filter((address) => !leaving.has(address)), handedOver };
}

/** Whether a merge made at `mergedAt` may still be undone at `now`. */
export function unmergeable(mergedAt: Date, now: Date, windowMs: number): boolean {
  return now.getTime() - mergedAt.getTime() <= windowMs;
}

/** The target's internal comment naming what was merged into it, and why when the agent said. */
export function mergeNote(sourceIds: readonly number[], comment: string | null | undefined): string {
  const named = `Merged ${sourceIds.map((id) => `#${id}`).join(', ')} into this ticket.`;
  return comment ? `${named}\n\n${comment}` : named;
}
