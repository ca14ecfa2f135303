import fc from 'fast-check';
import { mergeNote, participantsAfterUnmerge, participantsGained, type TicketPeople, unmergeable } from './merges.js';

const address = fc.constantFrom('a@x.io', 'b@x.io', 'c@x.io', 'd@x.io', 'e@x.io', 'f@x.io', 'g@x.io');
const people: fc.Arbitrary<TicketPeople> = fc.record({
  requester: address,
  participants: fc.uniqueArray(address, { maxLength: 4 }),
});

describe('merge rules', () => {
  it('a source brings each of its people the target does not list yet, once, the first source that names one bringing it', () => {
    fc.assert(
      fc.property(people, fc.array(people, { minLength: 1, maxLength: 5 }), (target, sources) => {
        const gained = participantsGained(target, sources);
        const all = gained.flat();
        expect(new Set(all).size).toBe(all.length);
        for (const address of all) expect([target.requester, ...target.participants]).not.toContain(address);
        sources.forEach((source, i) => {
          for (const address of [source.requester, ...source.participants]) {
            const known = [target.requester, ...target.participants, ...gained.slice(0, i).flat(), ...gained[i]];
            expect(known).toContain(address);
          }
        });
      }),
    );
  });

  it('unmerging each source in any order gives the target back the participants it had before the merge', () => {
    fc.assert(
      fc.property(people, fc.array(people, { minLength: 1, maxLength: 5 }), fc.infiniteStream(fc.nat()), (target, sources, picks) => {
        const gained = participantsGained(target, sources);
        let current = [...target.participants, ...gained.flat()];
        const merged = sources.map((source, i) => ({ source, gained: gained[i] }));
        const order = picks[Symbol.iterator]();
        while (merged.length > 0) {
          const [undone] = merged.splice(order.next().value % merged.length, 1);
          const after = participantsAfterUnmerge(
            current,
            undone.gained,
            merged.map((still) => still.source),
          );
          current = after.participants;
          for (const [heir, addresses] of after.handedOver) merged[heir].gained.push(...addresses);
          // While others stay merged, every address they name is still listed.
          for (const still of merged) {
            for (const address of [still.source.requester, ...still.source.participants]) {
              expect([target.requester, ...current]).toContain(address);
            }
          }
        }
        expect(current).toEqual(target.participants);
      }),
    );
  });

  it('a merge is undone within the window, to the millisecond', () => {
    const at = new Date('2026-11-01T00:00:00Z');
    expect(unmergeable(at, new Date(at.getTime() + 1000), 1000)).toBe(true);
    expect(unmergeable(at, new Date(at.getTime() + 1001), 1000)).toBe(false);
  });

  it('the note names every source, then the reason given', () => {
    expect(mergeNote([12, 13], 'Same outage')).toBe('Merged #12, #13 into this ticket.\n\nSame outage');
    expect(mergeNote([12], null)).toBe('Merged #12 into this ticket.');
  });
});
