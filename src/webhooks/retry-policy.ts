/** What one attempt came to, as the retry rules need it. */
export interface AttemptResult {
  /** The response's status, or null when there was none (refused address, connection error, timeout). */
  statusCode: number | null;
  /** Retry-After of a 429 or 503, in milliseconds from now. */
  retryAfterMs?: number;
}

export type NextStep = { status: 'succeeded' } | { status: 'failed'; disableEndpoint: boolean } | { status: 'pending'; delayMs: number };

/**
 * After attempt number `attempts` (1 for the first): success on 2xx only (3xx included among failures: redirects
 * are never followed); 410 Gone ends the delivery and disables the endpoint; otherwise the next attempt after the
 * schedule's delay, until the schedule is used up. A Retry-After longer than the scheduled delay postpones the
 * next attempt, but never beyond the delay the schedule gives the attempt after it (a receiver cannot stretch
 * the schedule by more than one step); a shorter one does not bring it forward.
 */
export function nextStep(result: AttemptResult, attempts: number, scheduleMs: number[]): NextStep {
  const code = result.statusCode;
  if (code !== null && code >= 200 && code < 300) return { status: 'succeeded' };
  if (code === 410) return { status: 'failed', disableEndpoint: true };
  if (attempts > scheduleMs.length) return { status: 'failed', disableEndpoint: false };
  const scheduled = scheduleMs[attempts - 1];
  const cap = Math.max(scheduled, scheduleMs[attempts] ?? scheduled);
  const delayMs = result.retryAfterMs !== undefined ? Math.min(Math.max(scheduled, result.retryAfterMs), cap) : scheduled;
  return { status: 'pending', delayMs };
}

/** Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP date; milliseconds from `now`, or undefined when unusable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
