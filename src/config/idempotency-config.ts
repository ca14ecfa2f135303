import type { EnvReader } from './env-reader.js';

export interface IdempotencyConfig {
  /** How long a key (and the response it replays) is kept before the background purge removes it. */
  ttlHours: number;
}

export function parseIdempotencyConfig(read: EnvReader): IdempotencyConfig {
  return {
    ttlHours: read.intBetween('IDEMPOTENCY_TTL_HOURS', 24, 1, 8760),
  };
}
