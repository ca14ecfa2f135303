import { backlogDetails } from './outbox.health.js';

describe('backlogDetails', () => {
  it('gives the oldest pending event as ISO time and age', () => {
    const oldest = new Date('2026-01-01T00:00:00.000Z');
    expect(backlogDetails({ pending: 3, oldestPendingAt: oldest, parked: 1 }, oldest.getTime() + 1_500)).toEqual({
      pending: 3,
      oldestPendingAt: '2026-01-01T00:00:00.000Z',
      oldestPendingAgeMs: 1_500,
      parked: 1,
    });
  });

  it('gives null time and age when nothing is pending', () => {
    expect(backlogDetails({ pending: 0, oldestPendingAt: null, parked: 0 }, Date.now())).toEqual({
      pending: 0,
      oldestPendingAt: null,
      oldestPendingAgeMs: null,
      parked: 0,
    });
  });
});
