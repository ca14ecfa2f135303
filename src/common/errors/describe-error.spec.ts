import { describeError } from './describe-error.js';

describe('describeError', () => {
  it('describes errors by class name, or by their own name when they set one', () => {
    expect(describeError(new TypeError('bad'))).toBe('TypeError: bad');
    expect(describeError(new Error('plain'))).toBe('Error: plain');
    expect(describeError('text')).toBe('text');
  });
});
