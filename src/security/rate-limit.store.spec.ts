import { MemoryRateLimitStore } from './rate-limit.store.js';

describe('MemoryRateLimitStore', () => {
  it('counts a key within its window and starts a new window once it has ended', async () => {
    let now = 1_000;
    const store = new MemoryRateLimitStore(() => now);
    expect(await store.hit('a', 60_000)).toEqual({ count: 1, resetMs: 60_000 });
    now += 59_000;
    expect(await store.hit('a', 60_000)).toEqual({ count: 2, resetMs: 1_000 });
    now += 1_000;
    expect(await store.hit('a', 60_000)).toEqual({ count: 1, resetMs: 60_000 });
  });

  it('counts each key on its own', async () => {
    const store = new MemoryRateLimitStore(() => 0);
    await store.hit('a', 1_000);
    expect((await store.hit('b', 1_000)).count).toBe(1);
  });
});
