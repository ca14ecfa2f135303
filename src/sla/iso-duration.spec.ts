import { formatIsoDuration } from './iso-duration.js';

describe('formatIsoDuration', () => {
  it('writes hours, minutes and whole seconds as Jira does, and a leading minus when negative', () => {
    expect([3_720_000, 0, 5_999, 27 * 3_600_000 + 1000, -300_000, -400].map(formatIsoDuration)).toEqual([
      'PT1H2M',
      'PT0S',
      'PT5S',
      'PT27H1S',
      '-PT5M',
      'PT0S',
    ]);
  });
});
