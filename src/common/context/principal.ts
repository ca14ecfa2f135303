import type { Request } from 'express';

/**
 * Who sent a request, as its bearer token says: `subject` is the token's `sub` (or, for a token without one, its
 * `client_id` or `azp`), `scopes` its `scope`/`scp` values. Set only when authentication is on and the request
 * carried a valid token; absent for anonymous requests (authentication off, or a path that needs none).
 *
 * This is the seam for auditing: a history entry's actor, a comment's default author and the scope of an
 * idempotency key take `principalOf(request)?.subject`.
 */
export interface Principal {
  readonly subject?: string;
  readonly scopes: readonly string[];
  /**
   * For a requester token (src/security/access-rules.ts): the canonical address of the person it acts for, from its
   * email claim. Absent for every other token.
   */
  readonly requesterEmail?: string;
}

/** The request property the authentication filter fills in (Spring's SecurityContext, per request). */
const PRINCIPAL = Symbol('principal');

type WithPrincipal = Request & { [PRINCIPAL]?: Principal };

export function principalOf(request: Request): Principal | undefined {
  return (request as WithPrincipal)[PRINCIPAL];
}

export function setPrincipal(request: Request, principal: Principal): void {
  (request as WithPrincipal)[PRINCIPAL] = principal;
}

export function hasScope(principal: Principal | undefined, ...anyOf: string[]): boolean {
  return principal !== undefined && anyOf.some((scope) => principal.scopes.includes(scope));
}
