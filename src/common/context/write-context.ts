import type { Request } from 'express';
import { principalOf } from './principal.js';
import { DESK, isRequester, type Viewer, viewerOf } from './viewer.js';

/** The write's transaction as `recordWith` gets it (database/'s Queryable, which common/ does not import). */
export interface WriteTransaction {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/** A key this request holds while it runs: only its token can finish or drop the started row. */
export interface IdempotencyClaim {
  scope: string;
  key: string;
  token: string;
  /** Where the resource this request creates will be, from its id (the request path and the id). */
  locationOf(id: number): string;
  /** The key's request hash for this request with `content` as its body: for a body read only as the write runs. */
  requestHashOf(content: unknown): string;
}

/**
 * Who makes a write and under which conditions, as the controllers hand it to the services. `actor` is the
 * subject of the request's bearer token; null when authentication is off or the request is anonymous.
 */
export interface WriteContext {
  actor: string | null;
  /** The Idempotency-Key the request holds, if any: its response is stored in the write's transaction. */
  idempotency?: IdempotencyClaim;
  /** Whose write it is: a requester's is held to what they may do (src/people/requester-writes.ts); absent: the desk's. */
  viewer?: Viewer;
  /**
   * The canonical address of the person whose request or mail makes the write (a requester's token, a mail's
   * sender), when one is known: its change says so, and notifications are not sent back to it.
   */
  causedBy?: string;
  /**
   * What the caller records in the write's own transaction, once the write has made its ticket (and comment): an
   * inbound mail's Message-ID (src/mail/inbound/), so that the mail and what it made commit together or not at all.
   */
  recordWith?: (transaction: WriteTransaction, made: { ticketId: number; commentId?: number }) => Promise<void>;
}

/** Where a request's claim of its key waits for the service, which finishes it in the write's transaction. */
const CLAIM = Symbol('idempotencyClaim');

type WithClaim = Request & { [CLAIM]?: IdempotencyClaim };

/** The key a request holds, if it came with an Idempotency-Key (set by the idempotency interceptor). */
export function idempotencyClaimOf(request: Request): IdempotencyClaim | undefined {
  return (request as WithClaim)[CLAIM];
}

export function setIdempotencyClaim(request: Request, claim: IdempotencyClaim): void {
  (request as WithClaim)[CLAIM] = claim;
}

/** The context of a write made outside any request, or by a request with no subject and no key. */
export function anonymousWrite(): WriteContext {
  return { actor: null };
}

/** The context of a request's write: its token's subject as the actor, and its idempotency claim. */
export function writeContext(request: Request): WriteContext {
  const idempotency = idempotencyClaimOf(request);
  const viewer = viewerOf(request);
  return {
    actor: principalOf(request)?.subject ?? null,
    ...(idempotency && { idempotency }),
    ...(viewer !== DESK && { viewer }),
    ...(isRequester(viewer) && { causedBy: viewer.email }),
  };
}
