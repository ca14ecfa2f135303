import { expiredPrefix } from './change-retention.js';

const cutoff = new Date('2026-11-20T00:00:00Z');
const at = (iso: string) => new Date(iso);

describe('expiredPrefix', () => {
  it('is the run of changes from the oldest that occurred before the cutoff', () => {
    const oldest = [
      { seq: 5, occurredAt: at('2026-11-10T00:00:00Z') },
      { seq: 6, occurredAt: at('2026-11-19T23:59:59Z') },
      { seq: 7, occurredAt: at('2026-11-20T00:00:00Z') },
      { seq: 8, occurredAt: at('2026-11-01T00:00:00Z') },
    ];
    expect(expiredPrefix(oldest, cutoff)).toEqual({ seq: 6, count: 2 });
  });

  it('stops at the first change still within retention, so what is kept is one unbroken range', () => {
    expect(
      expiredPrefix(
        [
          { seq: 1, occurredAt: at('2026-11-21T00:00:00Z') },
          { seq: 2, occurredAt: at('2026-11-01T00:00:00Z') },
        ],
        cutoff,
      ),
    ).toBeNull();
    expect(expiredPrefix([], cutoff)).toBeNull();
  });
});
