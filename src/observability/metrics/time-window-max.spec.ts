import { TimeWindowMax } from './time-window-max.js';

describe('TimeWindowMax', () => {
  it('reports the largest value recorded within the window', () => {
    const max = new TimeWindowMax(0);
    max.record(0.2, 1_000);
    max.record(0.5, 2_000);
    max.record(0.1, 3_000);
    expect(max.poll(4_000)).toBe(0.5);
  });

  it('forgets a value once the whole window (2 minutes) has passed without a larger one', () => {
    const max = new TimeWindowMax(0);
    max.record(0.5, 1_000);
    expect(max.poll(100_000)).toBe(0.5);
    expect(max.poll(121_000)).toBe(0);
  });

  it('keeps a later, smaller value after the larger one expired', () => {
    const max = new TimeWindowMax(0);
    max.record(0.9, 1_000);
    max.record(0.3, 90_000);
    expect(max.poll(125_000)).toBe(0.3);
  });

  it('starts again from 0 after a long silence', () => {
    const max = new TimeWindowMax(0);
    max.record(0.9, 1_000);
    expect(max.poll(10_000_000)).toBe(0);
  });
});
