/**
 * Links between tickets (docs/api.md#links): the rules, free of storage. A link is stored once, from one ticket to
 * another under its kind, and each ticket sees it with the type named from its side.
 */
export const LINK_TYPES = ['relates-to', 'duplicate-of', 'duplicated-by', 'parent-of', 'child-of', 'causes', 'caused-by'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

/** What is stored: the four kinds, each named from the ticket the link starts at. */
export type LinkKind = 'relates-to' | 'duplicate-of' | 'parent-of' | 'causes';

/** The kinds whose links may not close a cycle: a ticket is never its own ancestor, nor a problem its own cause. */
export const HIERARCHIES: readonly LinkKind[] = ['parent-of', 'causes'];

const INVERSE: Readonly<Record<LinkType, LinkType>> = {
  'relates-to': 'relates-to',
  'duplicate-of': 'duplicated-by',
  'duplicated-by': 'duplicate-of',
  'parent-of': 'child-of',
  'child-of': 'parent-of',
  causes: 'caused-by',
  'caused-by': 'causes',
};

const KINDS: readonly LinkType[] = ['relates-to', 'duplicate-of', 'parent-of', 'causes'];

export interface StoredLink {
  id: number;
  fromId: number;
  toId: number;
  kind: LinkKind;
  createdAt: Date;
  createdBy: string | null;
}

/** A link as one of its tickets shows it: the type from that ticket's side, and the other ticket. */
export interface LinkView {
  id: number;
  type: LinkType;
  ticketId: number;
  createdAt: Date;
  createdBy: string | null;
}

/** How a link `ticketId` asks for (`type` to `otherId`) is stored: from → to under a kind (`relates-to` from the smaller id). */
export function storedAs(ticketId: number, type: LinkType, otherId: number): Pick<StoredLink, 'fromId' | 'toId' | 'kind'> {
  if (type === 'relates-to') return { fromId: Math.min(ticketId, otherId), toId: Math.max(ticketId, otherId), kind: type };
  return KINDS.includes(type)
    ? { fromId: ticketId, toId: otherId, kind: type as LinkKind }
    : { fromId: otherId, toId: ticketId, kind: INVERSE[type] as LinkKind };
}

/** The link as `ticketId` (one of its two tickets) shows it. */
export function seenFrom(link: StoredLink, ticketId: number): LinkView {
  const forward = link.fromId === ticketId;
  return {
    id: link.id,
    type: forward ? link.kind : INVERSE[link.kind],
    ticketId: forward ? link.toId : link.fromId,
    createdAt: link.createdAt,
    createdBy: link.createdBy,
  };
}

/** The types a list filter `linkType` accepts, and the stored kind and side each reads. */
export function typeSide(type: LinkType): { kind: LinkKind; listedIs: 'from' | 'to' | 'either' } {
  if (type === 'relates-to') return { kind: type, listedIs: 'either' };
  return KINDS.includes(type) ? { kind: type as LinkKind, listedIs: 'from' } : { kind: INVERSE[type] as LinkKind, listedIs: 'to' };
}

/**
 * A path `start` → … → `goal` along `edges` (links of one kind, from → to), shortest first; undefined when there is
 * none. A link from `goal` to `start` would close it into a cycle.
 */
export function pathBetween(edges: ReadonlyArray<{ fromId: number; toId: number }>, start: number, goal: number): number[] | undefined {
  const next = new Map<number, number[]>();
  for (const { fromId, toId } of edges) next.set(fromId, [...(next.get(fromId) ?? []), toId]);
  const cameFrom = new Map<number, number>([[start, start]]);
  const queue = [start];
  while (queue.length > 0) {
    const at = queue.shift()!;
    if (at === goal) {
      const path = [at];
      while (path[0] !== start) path.unshift(cameFrom.get(path[0])!);
      return path;
    }
    for (const to of next.get(at) ?? []) {
      if (cameFrom.has(to)) continue;
      cameFrom.set(to, at);
      queue.push(to);
    }
  }
  return undefined;
}

/** A ticket's links (among `links`, which may hold other tickets' too) counted by the type from its side, for its v2 body: `{ "causes": 3 }`, `{}` without any. */
export function linkCounts(links: readonly StoredLink[], ticketId: number): Partial<Record<LinkType, number>> {
  const counts: Partial<Record<LinkType, number>> = {};
  for (const link of links) {
    if (link.fromId !== ticketId && link.toId !== ticketId) continue;
    const { type } = seenFrom(link, ticketId);
    counts[type] = (counts[type] ?? 0) + 1;
  }
  return counts;
}
