import fc from 'fast-check';
import { EndpointBreakers, FIRST_BACK_OFF_MS, MAX_BACK_OFF_MS } from './endpoint-breakers.js';

describe('EndpointBreakers', () => {
  it('holds an endpoint back after a timeout, doubling the back-off with each further one up to 5 minutes', () => {
    const breakers = new EndpointBreakers();
    breakers.timedOut(1, 0);
    expect(breakers.isOpen(1, FIRST_BACK_OFF_MS - 1)).toBe(true);
    expect(breakers.isOpen(1, FIRST_BACK_OFF_MS)).toBe(false);
    breakers.timedOut(1, FIRST_BACK_OFF_MS);
    expect(breakers.isOpen(1, 3 * FIRST_BACK_OFF_MS - 1)).toBe(true);
    expect(breakers.isOpen(1, 3 * FIRST_BACK_OFF_MS)).toBe(false);
    for (let i = 0; i < 40; i++) breakers.timedOut(1, 0);
    expect(breakers.isOpen(1, MAX_BACK_OFF_MS - 1)).toBe(true);
    expect(breakers.isOpen(1, MAX_BACK_OFF_MS)).toBe(false);
    expect(breakers.isOpen(2, 0)).toBe(false);
  });

  it('proves an endpoint by a success, which closes its breaker; any other outcome unproves it', () => {
    const breakers = new EndpointBreakers();
    expect(breakers.isProven(1)).toBe(false);
    expect(breakers.share(1, 32)).toBe(1);
    breakers.timedOut(1, 0);
    breakers.succeeded(1);
    expect(breakers.isOpen(1, 1)).toBe(false);
    expect(breakers.isProven(1)).toBe(true);
    expect(breakers.share(1, 32)).toBe(32);
    breakers.failed(1);
    expect(breakers.isProven(1)).toBe(false);
    expect(breakers.isOpen(1, 1)).toBe(false);
  });

  it('forgets endpoints no longer enabled', () => {
    const breakers = new EndpointBreakers();
    breakers.succeeded(1);
    breakers.timedOut(2, 0);
    breakers.retain(new Set([3]));
    expect(breakers.isProven(1)).toBe(false);
    expect(breakers.isOpen(2, 1)).toBe(false);
  });

  it('is open only during the back-off of its timeouts in a row, and proven only after a last success', () => {
    const outcome = fc.record({
      endpoint: fc.integer({ min: 1, max: 3 }),
      kind: fc.constantFrom('succeeded', 'failed', 'timedOut'),
      at: fc.integer({ min: 0, max: 1_000_000 }),
    });
    fc.assert(
      fc.property(fc.array(outcome, { maxLength: 30 }), fc.integer({ min: 0, max: 2_000_000 }), (outcomes, now) => {
        const breakers = new EndpointBreakers();
        const sorted = [...outcomes].sort((a, b) => a.at - b.at);
        for (const { endpoint, kind, at } of sorted) {
          if (kind === 'timedOut') breakers.timedOut(endpoint, at);
          else breakers[kind](endpoint);
        }
        for (const endpoint of [1, 2, 3]) {
          const own = sorted.filter((o) => o.endpoint === endpoint);
          const last = own.at(-1);
          expect(breakers.isProven(endpoint)).toBe(last?.kind === 'succeeded');
          const streak = own.length - 1 - own.findLastIndex((o) => o.kind !== 'timedOut');
          const backOff = Math.min(MAX_BACK_OFF_MS, FIRST_BACK_OFF_MS * 2 ** (streak - 1));
          expect(breakers.isOpen(endpoint, now)).toBe(streak > 0 && now < last!.at + backOff);
        }
      }),
    );
  });
});
