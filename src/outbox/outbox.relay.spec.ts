import { consecutiveRuns } from './outbox.relay.js';

describe('consecutiveRuns', () => {
  it('groups ascending ids into runs of consecutive numbers', () => {
    expect(consecutiveRuns([1, 2, 3, 5, 7, 8])).toEqual([[1, 3], [5, 5], [7, 8]]);
  });

  it('leaves out every number between runs, so a row the batch did not publish is never deleted', () => {
    const runs = consecutiveRuns([10, 11, 13]);
    const covered = runs.flatMap(([first, last]) => Array.from({ length: last - first + 1 }, (_, i) => first + i));
    expect(covered).toEqual([10, 11, 13]);
  });

  it('gives no runs for no ids', () => {
    expect(consecutiveRuns([])).toEqual([]);
  });
});
