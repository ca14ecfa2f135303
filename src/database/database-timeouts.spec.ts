import { setTimeout as sleep } from 'node:timers/promises';
import { ConsoleLogger, type LoggerService, Logger, ServiceUnavailableException } from '@nestjs/common';
import type { AfterQueryEvent, BeforeQueryEvent } from 'typeorm';
import { databaseTimeoutsSubscriber } from './database-timeouts.subscriber.js';
import { runInRequestContext } from '../common/context/request-context.js';
import { assertDeadlineNotPassed, freeOfRequestDeadline, isPastDeadline, untilCommitted, withinDeadline } from './request-deadline.js';
import { NestTypeOrmLogger } from './typeorm-logger.js';

const subscriber = new (databaseTimeoutsSubscriber())();
const before = (query: string) => subscriber.beforeQuery({ query } as BeforeQueryEvent);
/** `work` in a request context whose deadline is `budget` ms away. */
const runWithDeadline = <T>(budget: number, work: () => T) =>
  runInRequestContext({ requestId: 'r0', deadline: { at: Date.now() + budget, budgetMs: budget } }, work);

describe('request deadline', () => {
  it('lets statements through before the deadline and outside any request', async () => {
    await runWithDeadline(1_000, async () => expect(() => before('SELECT 1')).not.toThrow());
    expect(() => before('SELECT 1')).not.toThrow();
  });

  it('refuses every statement after the deadline, COMMIT included, with a 503 naming the budget', async () => {
    await runWithDeadline(5, async () => {
      await sleep(20);
      expect(() => before('COMMIT')).toThrow(ServiceUnavailableException);
      expect(() => assertDeadlineNotPassed()).toThrow('Database did not answer within 5 ms, try again later');
    });
  });

  it('always lets ROLLBACK through, so no connection goes back to the pool inside a transaction', async () => {
    await runWithDeadline(5, async () => {
      await sleep(20);
      expect(() => before('ROLLBACK')).not.toThrow();
    });
  });
});

describe('database work within the request deadline', () => {
  let budget = 0;
  const withinRequestDeadline = <T>(work: () => Promise<T>) => withinDeadline(budget, work);

  it('answers the 503 when the budget runs out while the work still waits, and leaves the work be', async () => {
    budget = 30;
    let finished = false;
    const slow = () => sleep(100).then(() => (finished = true));
    const outcome = runInRequestContext({ requestId: 'r1' }, () => withinRequestDeadline(slow));
    await expect(outcome).rejects.toThrow('Database did not answer within 30 ms, try again later');
    await outcome.catch((error: unknown) => expect(isPastDeadline(error)).toBe(true));
    expect(finished).toBe(false);
  });

  it('waits for a COMMIT that is out when the deadline passes, and answers with its outcome', async () => {
    budget = 30;
    const commitsLate = () => untilCommitted(() => sleep(80).then(() => 'committed'));
    await expect(runInRequestContext({ requestId: 'r3' }, () => withinRequestDeadline(commitsLate))).resolves.toBe('committed');
    const failsLate = () => untilCommitted(() => sleep(80).then(() => Promise.reject(new Error('connection lost'))));
    await expect(runInRequestContext({ requestId: 'r4' }, () => withinRequestDeadline(failsLate))).rejects.toThrow('connection lost');
    // Before and after the COMMIT, the deadline holds as ever.
    const workAfterCommit = async () => {
      await untilCommitted(async () => undefined);
      await sleep(80);
    };
    await expect(runInRequestContext({ requestId: 'r5' }, () => withinRequestDeadline(workAfterCommit))).rejects.toThrow(
      ServiceUnavailableException,
    );
  });

  it('shares one deadline among the pieces of work of a request, starting with the first', async () => {
    budget = 60;
    await runInRequestContext({ requestId: 'r2' }, async () => {
      await withinRequestDeadline(() => sleep(40));
      await expect(withinRequestDeadline(() => sleep(40))).rejects.toThrow(ServiceUnavailableException);
      // Past it, a statement is refused before it goes out, but clean-up free of the deadline still runs.
      expect(() => before('DELETE FROM idempotency_keys')).toThrow(ServiceUnavailableException);
      freeOfRequestDeadline(() => expect(() => before('DELETE FROM idempotency_keys')).not.toThrow());
    });
  });

  it('passes the outcome through in time, and bounds nothing outside a request or with the budget 0', async () => {
    budget = 1_000;
    await expect(runInRequestContext({ requestId: 'r3' }, () => withinRequestDeadline(async () => 42))).resolves.toBe(42);
    await expect(
      runInRequestContext({ requestId: 'r4' }, () => withinRequestDeadline(() => Promise.reject(new Error('boom')))),
    ).rejects.toThrow('boom');
    budget = 10;
    await expect(withinRequestDeadline(() => sleep(30).then(() => 'outside'))).resolves.toBe('outside');
    budget = 0;
    await expect(runInRequestContext({ requestId: 'r5' }, () => withinRequestDeadline(() => sleep(30).then(() => 'off')))).resolves.toBe(
      'off',
    );
  });
});

describe('timed-out statements', () => {
  const after = async (error: unknown) => {
    let destroyed = false;
    const connection = { destroy: () => (destroyed = true) };
    await subscriber.afterQuery({ error, queryRunner: { connect: async () => connection } } as unknown as AfterQueryEvent);
    return destroyed;
  };

  it('destroy the connection that ran them, and only those', async () => {
    expect(await after({ code: 'PROTOCOL_SEQUENCE_TIMEOUT' })).toBe(true);
    expect(await after({ code: 'ER_DUP_ENTRY' })).toBe(false);
    expect(await after(undefined)).toBe(false);
  });

  it("destroy it through the pool's own destroy when given one, so that the pool's counts forget it at once", async () => {
    const connection = { destroy: () => undefined };
    const destroyedByPool: unknown[] = [];
    const pooled = new (databaseTimeoutsSubscriber((gone) => destroyedByPool.push(gone)))();
    await pooled.afterQuery({
      error: { code: 'PROTOCOL_SEQUENCE_TIMEOUT' },
      queryRunner: { connect: async () => connection },
    } as unknown as AfterQueryEvent);
    expect(destroyedByPool).toEqual([connection]);
  });
});

describe('TypeORM logging', () => {
  const lines: string[] = [];
  const sink: LoggerService = {
    log: (m) => lines.push(`log ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`),
  };

  beforeAll(() => Logger.overrideLogger(sink));
  afterAll(() => Logger.overrideLogger(new ConsoleLogger()));

  it('reports a slow query on one line through the application logger, without its parameters', () => {
    new NestTypeOrmLogger().logQuerySlow(1234, 'SELECT *\n  FROM tickets WHERE title = ?', ['secret\ninjected']);
    expect(lines).toEqual(['warn Slow query (1234 ms): SELECT * FROM tickets WHERE title = ?']);
  });
});
