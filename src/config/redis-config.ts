import type { EnvReader } from './env-reader.js';

/** The shared Redis (rate-limit counters): Spring's `spring.data.redis.*`. */
export interface RedisConfig {
  /** Unset: counters are per process. */
  url?: string;
  keyPrefix: string;
  /** Bound on each command: a Redis that hangs must not hang a request. */
  commandTimeoutMs: number;
}

export function parseRedisConfig(read: EnvReader): RedisConfig {
  const name = read.has('SPRING_DATA_REDIS_URL') ? 'SPRING_DATA_REDIS_URL' : 'REDIS_URL';
  const url = read.first(name);
  if (url !== undefined && (!/^rediss?:\/\/\S+$/.test(url) || !URL.canParse(url)))
    throw read.invalid(name, 'must be a redis:// or rediss:// URL');
  return {
    url,
    keyPrefix: read.string('RATE_LIMIT_KEY_PREFIX', 'ticket-service:rate-limit:'),
    commandTimeoutMs: duration(read, 'SPRING_DATA_REDIS_TIMEOUT', 250),
  };
}

/** Milliseconds, or a Spring duration such as `500ms` or `2s`. */
function duration(read: EnvReader, name: string, fallbackMs: number): number {
  const raw = read.string(name, String(fallbackMs)).trim();
  const match = /^(\d+)(ms|s)?$/.exec(raw);
  if (!match) throw read.invalid(name, `must be milliseconds or a duration such as 500ms or 2s, got "${raw}"`);
  return Number(match[1]) * (match[2] === 's' ? 1_000 : 1);
}
