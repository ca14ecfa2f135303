import { jsonBodyProblem } from './json-body-limits.js';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

describe('jsonBodyProblem', () => {
  it('accepts a flat ticket body', () => {
    expect(jsonBodyProblem({ title: 't', description: 'd', status: 'OPEN' }, 32)).toBeUndefined();
  });

  it('accepts nesting up to the limit and refuses one level more', () => {
    expect(jsonBodyProblem(nested(32), 32)).toBeUndefined();
    expect(jsonBodyProblem(nested(33), 32)).toBe('nesting deeper than 32 levels');
  });

  it('inspects a body nested a million levels deep without overflowing the stack', () => {
    expect(jsonBodyProblem(nested(1_000_000), 32)).toBe('nesting deeper than 32 levels');
  });

  it('refuses an unpaired surrogate in a value or a key, wherever it is', () => {
    expect(jsonBodyProblem({ title: 'a\uD800b' }, 32)).toMatch(/unpaired UTF-16 surrogate/);
    expect(jsonBodyProblem({ extra: [{ '\uDC00': 1 }] }, 32)).toMatch(/unpaired UTF-16 surrogate/);
  });

  it('accepts emoji (paired surrogates), NUL and other control characters', () => {
    expect(jsonBodyProblem({ title: '😀\u0000\u001b\u2028', description: '👩‍💻' }, 32)).toBeUndefined();
  });

  it('ignores non-object bodies (the validation pipe answers those)', () => {
    expect(jsonBodyProblem(undefined, 32)).toBeUndefined();
    expect(jsonBodyProblem(42, 32)).toBeUndefined();
  });
});
