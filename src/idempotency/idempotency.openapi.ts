import { applyDecorators } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { ApiErrorResponse, ErrorExample } from '../common/errors/api-error-response.decorator.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENT_REPLAYED_HEADER } from './idempotency-key.js';

/** The response header a replay carries, for the success of an operation that takes Idempotency-Key. */
export const idempotentReplayedHeader = {
  [IDEMPOTENT_REPLAYED_HEADER]: {
    description:
      'Present (`true`) when this is the stored response of an earlier request with the same Idempotency-Key, replayed without running it again',
    required: false,
    schema: { type: 'string', enum: ['true'] },
  },
};

const KEY_IN_USE = 'A request with the same Idempotency-Key is still being processed; retry later';

/** The 409 of a key whose first request is still running, for an operation that documents its 409 itself. */
export const keyInUseExample = (path: string): ErrorExample => ({
  summary: 'Key in use',
  path,
  message: 'A request with Idempotency-Key "5f0c1e9e" is still being processed; retry later',
});

/**
 * Idempotency-Key on a create or a change, and the 409 and 422 it can lead to (its 400s are in the operation's 400).
 * `own409`: the operation declares a 409 of its own that includes keyInUseExample (one status, one declaration).
 */
export function ApiIdempotencyKey(
  errorResponse: typeof ApiErrorResponse,
  path: string,
  write: 'create' | 'change' = 'create',
  own409 = false,
) {
  const example = (summary: string, message: string): ErrorExample => ({ summary, path, message });
  return applyDecorators(
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description:
        `Makes the ${write} safe to retry: the first request with a key runs and its response is stored with the write; a retry of the ` +
        'same request (method, path and body) answers that response with Idempotent-Replayed: true and writes nothing. Keys are kept ' +
        `IDEMPOTENCY_TTL_HOURS (24 by default). 1-${IDEMPOTENCY_KEY_MAX_LENGTH} characters; empty or longer is a 400. A failed request stores nothing. ` +
        // No example in the schema: Swagger UI's Try it out would send it, and every later try would replay the first.
        'Use a fresh random value per operation, e.g. a UUID such as `5f0c1e9e-7a51-4b0a-9c43-0d5b1c2a8e11`.',
      schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH },
    }),
    ...(own409 ? [] : [errorResponse(409, KEY_IN_USE, keyInUseExample(path))]),
    errorResponse(
      422,
      'The Idempotency-Key was used with a different request (method, path or body)',
      example('Key reused', 'Idempotency-Key "5f0c1e9e" was used with a different request (method, path or body)'),
    ),
  );
}
