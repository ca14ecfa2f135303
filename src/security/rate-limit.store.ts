import type { Redis, Result } from 'ioredis';

// The command RedisRateLimitStore defines with defineCommand, typed as ioredis documents for custom commands.
declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** HIT_SCRIPT: the client's count in the current window and the milliseconds until it ends. */
    rateLimitHit(key: string, windowMs: number): Result<[number, number], Context>;
  }
}

/** One request counted: how many the client has made in the current window, and when that window ends. */
export interface RateLimitHit {
  count: number;
  resetMs: number;
}

export interface RateLimitStore {
  /** Where the counters are, for log lines: never a password. */
  readonly location: string;
  hit(key: string, windowMs: number): Promise<RateLimitHit>;
}

/**
 * Counts and reads the window in one atomic step. The window starts with a client's first request and is timed
 * by Redis (PEXPIRE), so replicas whose clocks differ still agree. A key that lost its expiry is given one again.
 */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

/** Counters shared by every replica: one EVALSHA round trip per request. */
export class RedisRateLimitStore implements RateLimitStore {
  readonly location: string;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {
    const { host, port, path } = redis.options;
    this.location = `Redis at ${path ?? `${host}:${port}`}`;
    if (!Object.hasOwn(redis, 'rateLimitHit')) redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  }

  async hit(key: string, windowMs: number): Promise<RateLimitHit> {
    const [count, resetMs] = await this.redis.rateLimitHit(this.keyPrefix + key, windowMs);
    return { count, resetMs };
  }
}

/** Above this many clients, windows that have ended are swept out before counting. */
const SWEEP_ABOVE = 10_000;

/** Counters of this process alone, for a service without Redis: each replica counts on its own. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly location = 'the memory of this process';
  private readonly windows = new Map<string, { count: number; endsAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  hit(key: string, windowMs: number): Promise<RateLimitHit> {
    const now = this.now();
    if (this.windows.size > SWEEP_ABOVE) this.sweep(now);
    let window = this.windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      window = { count: 0, endsAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count++;
    return Promise.resolve({ count: window.count, resetMs: window.endsAt - now });
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }
}
