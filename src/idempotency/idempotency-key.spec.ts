import type { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { canonicalJson, idempotencyKey, requestHash } from './idempotency-key.js';

describe('idempotency keys', () => {
  it('accepts a key of 1 to 255 characters as it is', () => {
    expect(idempotencyKey('a')).toBe('a');
    expect(idempotencyKey('k'.repeat(255))).toBe('k'.repeat(255));
  });

  it('refuses an empty key with NotBlank and a longer one with Size', () => {
    const code = (value: string) => {
      try {
        idempotencyKey(value);
      } catch (error) {
        return (error as ValidationFailedException).fieldErrors.map((e) => e.code);
      }
      return [];
    };
    expect(code('')).toEqual(['NotBlank']);
    expect(code('k'.repeat(256))).toEqual(['Size']);
  });

  it('hashes the same request alike whatever the order of its body keys', () => {
    expect(requestHash('post', '/api/tickets', { a: 1, b: { d: [1, 2], c: null } })).toBe(
      requestHash('POST', '/api/tickets', { b: { c: null, d: [1, 2] }, a: 1 }),
    );
    expect(canonicalJson({ b: 1, a: 'x' })).toBe('{"a":"x","b":1}');
  });

  it('tells requests apart by method, path and body', () => {
    const base = requestHash('POST', '/api/tickets', { a: 1 });
    expect(requestHash('POST', '/api/v2/tickets', { a: 1 })).not.toBe(base);
    expect(requestHash('POST', '/api/tickets', { a: 2 })).not.toBe(base);
    expect(requestHash('PUT', '/api/tickets', { a: 1 })).not.toBe(base);
  });
});
