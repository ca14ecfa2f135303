import { nextStep, parseRetryAfter } from './retry-policy.js';

const SCHEDULE = [5_000, 300_000, 1_800_000];

describe('webhook retry policy', () => {
  it('counts only 2xx as success', () => {
    expect(nextStep({ statusCode: 200 }, 1, SCHEDULE)).toEqual({ status: 'succeeded' });
    expect(nextStep({ statusCode: 204 }, 4, SCHEDULE)).toEqual({ status: 'succeeded' });
    for (const statusCode of [301, 302, 307, 308, 400, 500, null]) {
      expect(nextStep({ statusCode }, 1, SCHEDULE)).toEqual({ status: 'pending', delayMs: 5_000 });
    }
  });

  it('follows the schedule and fails the delivery after its last step', () => {
    expect(nextStep({ statusCode: 500 }, 2, SCHEDULE)).toEqual({ status: 'pending', delayMs: 300_000 });
    expect(nextStep({ statusCode: 500 }, 3, SCHEDULE)).toEqual({ status: 'pending', delayMs: 1_800_000 });
    expect(nextStep({ statusCode: 500 }, 4, SCHEDULE)).toEqual({ status: 'failed', disableEndpoint: false });
  });

  it('ends the delivery and disables the endpoint on 410 Gone', () => {
    expect(nextStep({ statusCode: 410 }, 1, SCHEDULE)).toEqual({ status: 'failed', disableEndpoint: true });
  });

  it('honours a longer Retry-After up to the delay of the step after', () => {
    expect(nextStep({ statusCode: 429, retryAfterMs: 60_000 }, 1, SCHEDULE)).toEqual({ status: 'pending', delayMs: 60_000 });
    expect(nextStep({ statusCode: 503, retryAfterMs: 86_400_000 }, 1, SCHEDULE)).toEqual({ status: 'pending', delayMs: 300_000 });
    expect(nextStep({ statusCode: 429, retryAfterMs: 1_000 }, 1, SCHEDULE)).toEqual({ status: 'pending', delayMs: 5_000 });
    expect(nextStep({ statusCode: 429, retryAfterMs: 9_000_000 }, 3, SCHEDULE)).toEqual({ status: 'pending', delayMs: 1_800_000 });
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
