import { createHash } from 'node:crypto';
import { springFieldError } from '../common/errors/spring-field-error.js';
import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** The header's value as a key: 400 (NotBlank, Size) for an empty one or one longer than 255 characters. */
export function idempotencyKey(value: string | string[]): string {
  const key = Array.isArray(value) ? value.join(', ') : value;
  const field = (code: string, attributes: unknown[], message: string) =>
    new ValidationFailedException('request', [
      springFieldError('request', IDEMPOTENCY_KEY_HEADER, code, 'java.lang.String', attributes, message, key),
    ]);
  if (key.trim() === '') throw field('NotBlank', [], 'Idempotency-Key must not be blank');
  if ([...key].length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    throw field('Size', [IDEMPOTENCY_KEY_MAX_LENGTH, 1], `Idempotency-Key must be between 1 and ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`);
  }
  return key;
}

/**
 * What makes two requests "the same" for a key: method, path and body, the body in a canonical JSON form
 * (object keys sorted), so that the same content sent with its keys in another order still matches.
 */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
