/**
 * Who makes a write and under which conditions, as the controllers hand it to the services. `actor` is the
 * authenticated subject once authentication exists; null until then (the seam it will fill).
 */
export interface WriteContext {
  actor: string | null;
}

/** The context of a request with no authenticated subject: today, every request. */
export function anonymousWrite(): WriteContext {
  return { actor: null };
}

/** The context of a request's write. No authentication yet, so no actor. */
export function writeContext(_request: unknown): WriteContext {
  return anonymousWrite();
}
