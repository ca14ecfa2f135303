import type { Request } from 'express';

/** When each request's bearer token stops being accepted (ms since the epoch), as authentication found it. */
const acceptedUntil = new WeakMap<Request, number>();

/**
 * Until when the request's token is accepted: its `exp` plus the clock skew every token check allows (60 s, as
 * Spring's). What outlives the request's start, such as a change-feed stream or long-poll, ends by then. Undefined
 * without a token (anonymous, or tokens off) or for a token without `exp`.
 */
export function tokenAcceptedUntil(request: Request): number | undefined {
  return acceptedUntil.get(request);
}

export function setTokenAcceptedUntil(request: Request, until: number | undefined): void {
  if (until !== undefined) acceptedUntil.set(request, until);
}
