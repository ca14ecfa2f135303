import { expiredPrefix } from './change-retention.js';

describe('expiredPrefix', () => {
  it('is the run of changes from the oldest that are past retention', () => {
    const oldest = [
      { seq: 5, expired: true },
      { seq: 6, expired: true },
      { seq: 7, expired: false },
      { seq: 8, expired: true },
    ];
    expect(expiredPrefix(oldest)).toEqual({ seq: 6, count: 2 });
  });

  it('stops at the first change still within retention, so what is kept is one unbroken range', () => {
    expect(
      expiredPrefix([
        { seq: 1, expired: false },
        { seq: 2, expired: true },
      ]),
    ).toBeNull();
    expect(expiredPrefix([])).toBeNull();
  });
});
