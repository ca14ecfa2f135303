import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type { ExecuteValues, PoolConnection } from 'mysql2';
import type { DataSource, QueryRunner } from 'typeorm';
import { lostTheConnection, serverErrno } from './connection-errors.js';
import {
  assertDeadlineNotPassed,
  isPastDeadline,
  statementTimedOut,
  statementTimeLimitMs,
  untilCommitted,
  withinDeadline,
} from './request-deadline.js';
import { type Queryable, StatementBatch } from './statement-batch.js';
import { type DatabaseServer, databaseServer, isServerTimeLimit, withServerTimeLimit } from './statement-time-limit.js';

/**
 * A transaction's statements. `query` sends one and answers its result (several: the list of their results); the
 * first goes out together with START TRANSACTION. `later` takes the statements whose results nobody reads: they go
 * out together, before COMMIT, and on MariaDB with COMMIT in the same round trip (there the server bounds each of
 * them by the request's deadline); elsewhere COMMIT goes alone. Nothing is sent once the request's deadline has
 * passed (DatabaseTimeoutsSubscriber checks before each round trip): a write the client got a 503 for must not
 * commit later. Once COMMIT is out, the request waits for its answer (untilCommitted).
 */
export interface Transaction extends TransactionWrites {
  readonly later: TransactionWrites;
  /**
   * One statement as a prepared statement (mysql2's `execute`, the binary protocol): a Buffer parameter travels as
   * its bytes, where `query` writes it into the statement's text hex-encoded, twice its size and built as a string.
   * For large binary values; bounded as every statement of the transaction.
   */
  execute(sql: string, params: ExecuteValues[]): Promise<unknown>;
}

/** What is to happen once a transaction has committed, e.g. waking the worker that publishes what it recorded. */
export type AfterCommit = () => void | Promise<void>;

/** Statements of a transaction, and what is to happen once it has committed. */
export interface TransactionWrites extends Queryable {
  /**
   * Runs `hook` after COMMIT succeeded, in the order registered, before inTransaction answers; never after a
   * rollback, nor for an attempt that a deadlock rolled back. A hook's failure is logged, not thrown: the write has
   * committed. The same function registered again runs once (a wake-up registered by each event of a batch).
   */
  afterCommit(hook: AfterCommit): void;
}

const logger = new Logger('Database');

export interface TransactionOptions {
  /** false for work that cannot be run twice, e.g. one that consumes a request's body. */
  retryDeadlocks?: boolean;
  /** DB_QUERY_TIMEOUT_MS (see request-deadline.ts); 0 or absent: unbounded. */
  budgetMs?: number;
  /**
   * READ COMMITTED for work that locks a row by a key which may not exist yet (an import's externalId): at REPEATABLE
   * READ that lock covers the gap, and two such transactions inserting into one gap deadlock.
   */
  isolation?: 'READ COMMITTED';
}

/** InnoDB's ER_LOCK_DEADLOCK: it rolled the whole transaction back to break a deadlock. */
const DEADLOCK = 1213;
const ATTEMPTS = 5;

/**
 * Runs `work` in a transaction within the request's deadline (started by it if it has not; see request-deadline.ts):
 * past it, the answer is the 503 at once, and the transaction is left to be stopped and rolled back. It runs again
 * (up to five attempts in all, after a few random milliseconds, so that the two sides of a deadlock do not meet again
 * at once) when InnoDB chose it to break a deadlock: InnoDB rolls such a transaction back whole, and asks for exactly
 * this. Updates of neighbouring tickets can deadlock on the gaps of the search index they write; the client should
 * not get a 503 for that. `work` must hold nothing outside the transaction that a second run would repeat.
 */
export async function inTransaction<T>(
  dataSource: DataSource,
  work: (transaction: Transaction) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const budgetMs = options.budgetMs ?? 0;
  return withinDeadline(budgetMs, async () => {
    const server = await databaseServer(dataSource);
    const attempts = options.retryDeadlocks === false ? 1 : ATTEMPTS;
    for (let attempt = 1; ; attempt++) {
      try {
        return await runTransaction(dataSource.createQueryRunner(), server, budgetMs, work, options.isolation);
      } catch (error) {
        if (attempt === attempts || !isDeadlock(error)) throw error;
      }
      await sleep(Math.random() * 5 * attempt);
    }
  });
}

/**
 * One run of `work` on a connection of the pool, through a TypeORM query runner (its statement timeout, the
 * deadline rules of DatabaseTimeoutsSubscriber, its error types). A failure sends ROLLBACK, which always goes out.
 */
async function runTransaction<T>(
  runner: QueryRunner,
  server: DatabaseServer,
  budgetMs: number,
  work: (transaction: Transaction) => Promise<T>,
  isolation?: TransactionOptions['isolation'],
): Promise<T> {
  let begun = false;
  // SET TRANSACTION (without SESSION) holds for the next transaction only: nothing is left on the pooled connection.
  const begin = isolation ? [`SET TRANSACTION ISOLATION LEVEL ${isolation}`, 'START TRANSACTION'] : ['START TRANSACTION'];
  let result: T;
  const hooks: AfterCommit[] = [];
  const afterCommit = (hook: AfterCommit) => {
    if (!hooks.includes(hook)) hooks.push(hook);
  };
  const later = Object.assign(new StatementBatch(), { afterCommit });
  const send = (sql: string, params: unknown[]) =>
    runner.query(writeTimeLimited(sql, server, budgetMs), params).catch((error: unknown) => serverTimeLimitAs503(error, budgetMs));
  const transaction: Transaction = {
    later,
    afterCommit,
    query: async (sql: string, params: unknown[] = []) => {
      if (begun) return send(sql, params);
      begun = true;
      // One result per statement, a list of them for several (mysql2's answer to several statements).
      const results = ((await send(`${begin.join(';\n')};\n${sql}`, params)) as unknown[]).slice(begin.length);
      return results.length === 1 ? results[0] : results;
    },
    execute: async (sql: string, params: ExecuteValues[]) => {
      if (!begun) {
        begun = true;
        await send(begin.join(';\n'), []);
      }
      assertDeadlineNotPassed();
      // The connection TypeORM's runner holds for the transaction, as QueryRunner.connect() answers it.
      return executeOn((await runner.connect()) as PoolConnection, sql, params, server, budgetMs);
    },
  };
  try {
    result = await work(transaction);
    if (server === 'MariaDB' && later.size > 0) {
      // One round trip: the server stops at the first statement that fails, so COMMIT runs only after all of them
      // did. Each statement is stopped by the server past the time left when the round trip went out
      // (writeTimeLimited); the round trip as a whole is bounded by the statement timeout on the client's side.
      await untilCommitted(() => later.run(transaction, 'COMMIT')).catch((error: unknown) => {
        throw isPastDeadline(error) || refusedBeforeCommit(error)
          ? error
          : Object.assign(error as object, { [COMMIT_OUTCOME_UNKNOWN]: true });
      });
    } else {
      await later.run(transaction);
      await untilCommitted(() => runner.query('COMMIT')).catch((error: unknown) => {
        // Refused before it went out (past the deadline), COMMIT did nothing; otherwise nobody knows what it did.
        throw isPastDeadline(error) ? error : Object.assign(error as object, { [COMMIT_OUTCOME_UNKNOWN]: true });
      });
    }
  } catch (error) {
    // Past the deadline the client has had its 503 already (inTransaction's race): this ROLLBACK may wait behind the
    // statement in flight, which the server stops at the deadline, without holding the answer up.
    await runner.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await runner.release();
  }
  await runHooks(hooks);
  return result;
}

async function runHooks(hooks: AfterCommit[]): Promise<void> {
  for (const hook of hooks) {
    try {
      await hook();
    } catch (error) {
      logger.error(`A step after a commit failed: ${(error as Error).message}`, (error as Error).stack);
    }
  }
}

/**
 * On MariaDB, each statement of a transaction's round trip (not START TRANSACTION nor COMMIT; ROLLBACK never comes
 * here) for the server to stop by itself when the request's deadline passes, as reads are (Database.query): a write
 * waiting for a row lock, or a slow one, does not go on running for a client that has had its 503. SET STATEMENT
 * holds for its one statement, so no session state is left on the connection. A stopped statement fails the
 * transaction, which rolls back. MySQL has no such bound for writes (MAX_EXECUTION_TIME is for reads): there they
 * stay bounded by the statement timeout on the client's side. The statements are the service's own, joined by
 * `;\n` (StatementBatch), every value a bound parameter, so the text splits safely there.
 */
function writeTimeLimited(sql: string, server: DatabaseServer, budgetMs: number): string {
  const limitMs = statementTimeLimitMs(budgetMs);
  if (limitMs === undefined || server !== 'MariaDB') return sql;
  return sql
    .split(';\n')
    .map((statement) =>
      /^\s*(START TRANSACTION|COMMIT|SET TRANSACTION ISOLATION LEVEL [A-Z ]+)\s*$/i.test(statement)
        ? statement
        : withServerTimeLimit(statement, limitMs, server),
    )
    .join(';\n');
}

/**
 * Errors with which the server refuses a write's statement, and with which it refuses COMMIT only when nothing was
 * committed (a deadlock, or on Galera a failed certification, answered 1213). An error outside these, such as a
 * connection killed or a shutdown (1927, 1053, 1317) or a proxy's own, may have come from COMMIT after it took effect.
 */
const REFUSALS = new Set([
  1048, // ER_BAD_NULL_ERROR
  1062, // ER_DUP_ENTRY
  1205, // ER_LOCK_WAIT_TIMEOUT
  1213, // ER_LOCK_DEADLOCK
  1264, // ER_WARN_DATA_OUT_OF_RANGE
  1265, // WARN_DATA_TRUNCATED
  1292, // ER_TRUNCATED_WRONG_VALUE
  1366, // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
  1406, // ER_DATA_TOO_LONG
  1451, // ER_ROW_IS_REFERENCED_2
  1452, // ER_NO_REFERENCED_ROW_2
  4025, // ER_CONSTRAINT_FAILED
]);

/**
 * Whether `error`, answering a round trip of statements that ends with COMMIT, says that nothing was committed: the
 * server refused one of the statements (it stops there, COMMIT did not run) or COMMIT itself for a conflict.
 */
function refusedBeforeCommit(error: unknown): boolean {
  const errno = serverErrno(error);
  return errno !== undefined && !lostTheConnection(error) && REFUSALS.has(errno);
}

/**
 * `execute` on the transaction's connection, bounded like `query`: by the time limit on the client's side and, on
 * MariaDB, by the server. mysql2 prepares each statement text once per connection and keeps it, so the server's limit
 * is in whole seconds: a text that changed with every call would be prepared anew each time. A statement the client
 * stopped waiting for is still in flight: the ROLLBACK that follows waits behind it, and when that times out too, its
 * connection is destroyed (DatabaseTimeoutsSubscriber).
 */
function executeOn(
  connection: PoolConnection,
  sql: string,
  params: ExecuteValues[],
  server: DatabaseServer,
  budgetMs: number,
): Promise<unknown> {
  const limitMs = statementTimeLimitMs(budgetMs);
  const limited =
    limitMs === undefined || server !== 'MariaDB' ? sql : withServerTimeLimit(sql, Math.ceil(limitMs / 1_000) * 1_000, server);
  return new Promise((resolve, reject) => {
    connection.execute({ sql: limited, timeout: limitMs }, params, (error, result) => {
      if (error) reject(isServerTimeLimit(error) ? statementTimedOut(budgetMs) : error);
      else resolve(result);
    });
  });
}

function serverTimeLimitAs503(error: unknown, budgetMs: number): never {
  const driverError = (error as { driverError?: unknown }).driverError;
  throw isServerTimeLimit(error) || isServerTimeLimit(driverError) ? statementTimedOut(budgetMs) : error;
}

const COMMIT_OUTCOME_UNKNOWN = Symbol('commitOutcomeUnknown');

/** Whether `error` failed a transaction's COMMIT once it was out: whether it committed is unknown. */
export function isCommitOutcomeUnknown(error: unknown): boolean {
  return typeof error === 'object' && error !== null && COMMIT_OUTCOME_UNKNOWN in error;
}

function isDeadlock(error: unknown): boolean {
  return serverErrno(error) === DEADLOCK;
}
