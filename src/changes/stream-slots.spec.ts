import type { ConfigService } from '@nestjs/config';
import type { Request } from 'express';
import { setPrincipal } from '../common/context/principal.js';
import type { AppConfig } from '../config/app-config.js';
import { StreamSlots, TooManyStreamsException } from './stream-slots.js';

const slots = (streamsPerClient: number) =>
  new StreamSlots({
    get: (key: string) => (key === 'changes' ? { streamsPerClient } : { rateLimit: undefined }),
  } as unknown as ConfigService<AppConfig, true>);

const from = (ip: string, subject?: string): Request => {
  const request = { ip, socket: { remoteAddress: ip } } as unknown as Request;
  if (subject !== undefined) setPrincipal(request, { subject, scopes: [] });
  return request;
};

describe('StreamSlots', () => {
  it('gives each subject, else each address, its own slots, refusing past the limit with when the first ends', () => {
    const limited = slots(2);
    const now = Date.now();
    const first = limited.take(from('192.0.2.1', 'alice'), now + 30_000);
    limited.take(from('192.0.2.2', 'alice'), now + 90_000);
    let refusal: unknown;
    try {
      limited.take(from('192.0.2.3', 'alice'), now + 90_000);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(TooManyStreamsException);
    expect((refusal as TooManyStreamsException).getStatus()).toBe(429);
    expect((refusal as TooManyStreamsException).retryAfterSeconds).toBe(30);
    limited.take(from('192.0.2.1', 'bob'), now);
    limited.take(from('192.0.2.1'), now);
    limited.take(from('::ffff:192.0.2.1'), now);
    expect(() => limited.take(from('192.0.2.1'), now)).toThrow(TooManyStreamsException);

    first.release();
    first.release();
    limited.take(from('192.0.2.9', 'alice'), now);
    expect(() => limited.take(from('192.0.2.9', 'alice'), now)).toThrow(TooManyStreamsException);
  });

  it('limits nothing with 0', () => {
    const unlimited = slots(0);
    for (let i = 0; i < 1000; i++) expect(unlimited.take(from('192.0.2.1'), Date.now())).toBeDefined();
  });
});
