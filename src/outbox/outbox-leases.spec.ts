import { type LeaseRow, planLeases } from './outbox-leases.js';

const rows = (owners: Array<string | null>, expired: number[] = []): LeaseRow[] =>
  owners.map((owner, partition) => ({ partition, owner, epoch: 1, expired: expired.includes(partition) }));

describe('planLeases', () => {
  it('claims every free partition when it is the only relay', () => {
    expect(planLeases(rows([null, null, null, null]), 'a', 1)).toEqual({ release: [], claim: [0, 1, 2, 3] });
  });

  it('claims no more than its fair share when others are alive', () => {
    expect(planLeases(rows([null, null, null, null, null, null, null, null]), 'a', 3).claim).toHaveLength(3);
  });

  it('gives up its highest partitions when it holds more than its share', () => {
    expect(planLeases(rows(['a', 'a', 'a', 'a']), 'a', 2)).toEqual({ release: [2, 3], claim: [] });
  });

  it('takes over expired leases of another relay, never live ones', () => {
    expect(planLeases(rows(['b', 'b', 'b', 'b'], [1, 3]), 'a', 1)).toEqual({ release: [], claim: [1, 3] });
  });

  it('counts an expired lease of its own as held, so renewing it keeps its epoch', () => {
    expect(planLeases(rows(['a', 'a', null, null], [0]), 'a', 2)).toEqual({ release: [], claim: [] });
  });

  it('starts claiming at its own offset, so relays starting together try different partitions first', () => {
    expect(planLeases(rows([null, null, null, null]), 'a', 2, 2).claim).toEqual([2, 3]);
  });
});
