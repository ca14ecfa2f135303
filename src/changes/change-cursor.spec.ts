import { encodePosition } from '../common/paging/cursor.js';
import { decodeChangeCursor, encodeChangeCursor } from './change-cursor.js';

describe('change cursors', () => {
  it('carry the position they were made for', () => {
    for (const seq of [0, 1, 42, 9_007_199_254_740_991]) expect(decodeChangeCursor(encodeChangeCursor(seq))).toBe(seq);
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
