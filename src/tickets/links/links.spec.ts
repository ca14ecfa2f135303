import fc from 'fast-check';
import { LINK_TYPES, linkCounts, pathBetween, seenFrom, storedAs, typeSide } from './links.js';

const id = fc.integer({ min: 1, max: 1_000_000 });
const INVERSE = new Map([
  ['relates-to', 'relates-to'],
  ['duplicate-of', 'duplicated-by'],
  ['duplicated-by', 'duplicate-of'],
  ['parent-of', 'child-of'],
  ['child-of', 'parent-of'],
  ['causes', 'caused-by'],
  ['caused-by', 'causes'],
]);

describe('links', () => {
  it('stores a link once, however it is asked for, and shows it from each ticket with the type as that one sees it (property)', () => {
    fc.assert(
      fc.property(id, id, fc.constantFrom(...LINK_TYPES), (ticketId, otherId, type) => {
        fc.pre(ticketId !== otherId);
        const stored = storedAs(ticketId, type, otherId);
        expect(storedAs(otherId, INVERSE.get(type) as (typeof LINK_TYPES)[number], ticketId)).toEqual(stored);
        const link = { ...stored, id: 1, createdAt: new Date(0), createdBy: null };
        expect(seenFrom(link, ticketId)).toMatchObject({ type, ticketId: otherId });
        expect(seenFrom(link, otherId)).toMatchObject({ type: INVERSE.get(type), ticketId });
        expect(['relates-to', 'duplicate-of', 'parent-of', 'causes']).toContain(stored.kind);
        // A list filter by this type reads the side the listed ticket is on.
        const side = typeSide(type);
        expect(side.kind).toBe(stored.kind);
        if (side.listedIs !== 'either') expect(stored[side.listedIs === 'from' ? 'fromId' : 'toId']).toBe(ticketId);
      }),
    );
  });

  it('finds a path between two tickets exactly when one is reachable from the other (property)', () => {
    const edges = fc.array(fc.record({ fromId: fc.integer({ min: 1, max: 8 }), toId: fc.integer({ min: 1, max: 8 }) }), { maxLength: 20 });
    fc.assert(
      fc.property(edges, fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 8 }), (graph, start, goal) => {
        const reached = new Set([start]);
        for (let grown = true; grown;) {
          grown = false;
          for (const { fromId, toId } of graph) if (reached.has(fromId) && !reached.has(toId)) grown = reached.add(toId) !== undefined;
        }
        const path = pathBetween(graph, start, goal);
        expect(path !== undefined).toBe(reached.has(goal));
        if (path) {
          expect([path[0], path.at(-1)]).toEqual([start, goal]);
          for (let i = 1; i < path.length; i++) expect(graph).toContainEqual({ fromId: path[i - 1], toId: path[i] });
        }
      }),
    );
  });

  it('counts a ticket’s links by the type from its side', () => {
    const at = (fromId: number, toId: number, kind: 'causes' | 'relates-to') => ({
      id: 1,
      fromId,
      toId,
      kind,
      createdAt: new Date(0),
      createdBy: null,
    });
    expect(linkCounts([at(1, 2, 'causes'), at(1, 3, 'causes'), at(4, 1, 'causes'), at(1, 5, 'relates-to')], 1)).toEqual({
      causes: 2,
      'caused-by': 1,
      'relates-to': 1,
    });
    expect(linkCounts([], 1)).toEqual({});
    // A page's links hold other tickets' too: only the ticket's own count.
    expect(linkCounts([at(2, 3, 'causes'), at(1, 2, 'relates-to')], 3)).toEqual({ 'caused-by': 1 });
  });
});
