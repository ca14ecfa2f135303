import type { Request } from 'express';
import { idempotencyClaimOf } from '../idempotency/idempotency.interceptor.js';
import type { IdempotencyClaim } from '../idempotency/idempotency.service.js';
import { principalOf } from '../security/principal.js';

/**
 * Who makes a write and under which conditions, as the controllers hand it to the services. `actor` is the
 * subject of the request's bearer token; null when authentication is off or the request is anonymous.
 */
export interface WriteContext {
  actor: string | null;
  /** The Idempotency-Key the request holds, if any: its response is stored in the write's transaction. */
  idempotency?: IdempotencyClaim;
}

/** The context of a write made outside any request, or by a request with no subject and no key. */
export function anonymousWrite(): WriteContext {
  return { actor: null };
}

/** The context of a request's write: its token's subject as the actor, and its idempotency claim. */
export function writeContext(request: Request): WriteContext {
  const idempotency = idempotencyClaimOf(request);
  return { actor: principalOf(request)?.subject ?? null, ...(idempotency && { idempotency }) };
}
