import { HealthIndicatorService } from '@nestjs/terminus';
import { probe } from './health-probe.js';

describe('probe', () => {
  const health = new HealthIndicatorService();

  it('reports the outcome of a check with its details', async () => {
    await expect(probe(health, 'db', 1_000, async () => ({ up: true, details: { database: 'MariaDB' } }))).resolves.toEqual({
      db: { database: 'MariaDB', status: 'up' },
    });
    await expect(probe(health, 'diskSpace', 1_000, async () => ({ up: false, details: { free: 1 } }))).resolves.toEqual({
      diskSpace: { free: 1, status: 'down' },
    });
  });

  it('turns a failing check into DOWN with "<ErrorClass>: <message>"', async () => {
    class ConnectionRefused extends Error {}
    await expect(probe(health, 'rabbit', 1_000, () => Promise.reject(new ConnectionRefused('connect ECONNREFUSED')))).resolves.toEqual({
      rabbit: { error: 'ConnectionRefused: connect ECONNREFUSED', status: 'down' },
    });
  });

  it('answers DOWN with a timeout error for a check that never answers, and aborts its signal', async () => {
    let signal: AbortSignal | undefined;
    const result = await probe(health, 'db', 20, (given) => {
      signal = given;
      return new Promise(() => undefined);
    });
    expect(result).toEqual({ db: { error: 'TimeoutError: no answer within 20 ms', status: 'down' } });
    expect(signal?.aborted).toBe(true);
  });
});
