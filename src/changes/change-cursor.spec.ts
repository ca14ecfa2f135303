import { encodePosition } from '../common/paging/cursor.js';
import { decodeChangeCursor, decodeChangePosition, encodeChangeCursor } from './change-cursor.js';

describe('change cursors', () => {
  it('carry the position they were made for', () => {
    for (const seq of [0, 1, 42, 9_007_199_254_740_991]) expect(decodeChangeCursor(encodeChangeCursor(seq))).toBe(seq);
  });

  it('carry when their change was numbered, when given', () => {
    expect(decodeChangePosition(encodeChangeCursor(42, 1_795_300_634_101))).toEqual({ seq: 42, numberedAt: 1_795_300_634_101 });
    expect(decodeChangePosition(encodeChangeCursor(42))).toEqual({ seq: 42 });
    expect(decodeChangePosition(encodePosition('changes', [42, -1]))).toBeNull();
    expect(decodeChangePosition(encodePosition('changes', [42, 1, 2]))).toBeNull();
  });

  it('are opaque: base64url and a check, no visible number', () => {
    expect(encodeChangeCursor(12345)).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(encodeChangeCursor(12345)).not.toContain('12345');
  });

  it('refuse an altered, made-up or foreign cursor', () => {
    const cursor = encodeChangeCursor(7);
    expect(decodeChangeCursor(`${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    expect(decodeChangeCursor('garbage')).toBeNull();
    expect(decodeChangeCursor(encodePosition('other-list', [7]))).toBeNull();
    expect(decodeChangeCursor(encodePosition('changes', [-1]))).toBeNull();
    expect(decodeChangeCursor(encodePosition('changes', ['7']))).toBeNull();
  });
});
