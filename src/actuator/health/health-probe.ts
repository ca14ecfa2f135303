import type { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { describeError } from '../../common/errors/describe-error.js';

export interface ProbeOutcome {
  up: boolean;
  details?: Record<string, unknown>;
}

class HealthTimeoutError extends Error {
  override readonly name = 'TimeoutError';

  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/**
 * Runs one indicator's check against a deadline. A check that fails or does not answer in time makes its component
 * DOWN with Spring's `error` detail; it never throws, so one dependency can neither fail nor hang the endpoint.
 * The signal aborts at the deadline, for checks that hold something they should give back.
 */
export async function probe<Key extends string>(
  health: HealthIndicatorService,
  key: Key,
  timeoutMs: number,
  check: (signal: AbortSignal) => Promise<ProbeOutcome>,
): Promise<HealthIndicatorResult<Key>> {
  const session = health.check(key);
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new HealthTimeoutError(timeoutMs);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    const { up, details = {} } = await Promise.race([check(controller.signal), deadline]);
    return up ? session.up(details) : session.down(details);
  } catch (error) {
    return session.down({ error: describeError(error) });
  } finally {
    clearTimeout(timer);
  }
}
