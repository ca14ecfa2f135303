import { parseInstant } from './query-instant.js';

describe('parseInstant', () => {
  it.each([
    ['2026-11-22T20:37:14Z', '2026-11-22T20:37:14.000Z'],
    ['2026-11-22T20:37:14.123Z', '2026-11-22T20:37:14.123Z'],
    ['2026-11-22T20:37Z', '2026-11-22T20:37:00.000Z'],
    ['2026-11-22T22:37:14+02:00', '2026-11-22T20:37:14.000Z'],
    ['2026-11-22T15:37:14.5-05:00', '2026-11-22T20:37:14.500Z'],
    ['2026-11-22T22:37:14 02:00', '2026-11-22T20:37:14.000Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(new Date(parseInstant(text)!).toISOString()).toBe(iso);
  });

  it('rounds a finer instant up to the next millisecond, so after and before keep their meaning at stored precision', () => {
    expect(new Date(parseInstant('2026-11-22T20:37:14.1231Z')!).toISOString()).toBe('2026-11-22T20:37:14.124Z');
    expect(new Date(parseInstant('2026-11-22T20:37:14.123000000Z')!).toISOString()).toBe('2026-11-22T20:37:14.123Z');
  });

  it.each([
    '2026-11-22',
    '2026-11-22T20:37:14',
    '2026-11-22 20:37:14Z',
    '2026-02-30T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-11-22T24:00:00Z',
    '2026-11-22T20:60:00Z',
    '2026-11-22T20:37:14+19:00',
    '2026-11-22t20:37:14z',
    '0999-12-31T23:59:59Z',
    '1700000000000',
    'yesterday',
    '',
    '2026-11-22T20:37:14.1234567890Z',
  ])('refuses %p', (text) => {
    expect(parseInstant(text)).toBeUndefined();
  });
});
