import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Readable } from 'node:stream';
import type { QueryError } from 'mysql2';
import type { DataSource, QueryRunner } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { inCallersContext } from './callers-context.js';
import { DatabasePool } from './database-pool.js';
import { openRowStream, type RowStreamOptions } from './row-stream.js';
import { assertDeadlineNotPassed, statementTimedOut, statementTimeLimitMs, withinDeadline } from './request-deadline.js';
import { inTransaction, type Transaction, type TransactionOptions } from './transaction.js';
import { type DatabaseServer, databaseServer, isServerTimeLimit, withServerTimeLimit } from './statement-time-limit.js';

/**
 * The one way of every feature to the database, and the one place of the deadline rules (request-deadline.ts):
 * - each statement of a request is bounded by the request's deadline, which its first statement starts: past it,
 *   the request answers 503 at once, and no later statement of it goes out (COMMIT included, ROLLBACK always);
 * - the server stops each statement itself when the deadline passes (a time limit per statement where the engine
 *   has one), and a streamed list's statement when the deadline passes before its first row or its reader goes
 *   away: nothing of an abandoned request goes on running there;
 * - outside a request (background workers) each statement is bounded by DB_QUERY_TIMEOUT_MS;
 * - a connection whose statement timed out on the client's side is destroyed, not reused.
 * Waits of a request's database work that are not statements of its own (a read batched with other requests') are
 * bounded by `withinDeadline`; `freeOfRequestDeadline` (request-deadline.ts) is the one way out, for uploads and streams.
 */
@Injectable()
export class Database implements OnModuleInit {
  /** DB_QUERY_TIMEOUT_MS; 0 turns the deadline and the time limits off. */
  readonly budgetMs: number;
  private server?: DatabaseServer;

  constructor(
    private readonly pool: DatabasePool,
    @InjectDataSource() private readonly dataSource: DataSource,
    config: ConfigService<AppConfig, true>,
  ) {
    this.budgetMs = config.get('db.queryTimeoutMs', { infer: true });
  }

  async onModuleInit(): Promise<void> {
    this.server = await databaseServer(this.dataSource);
  }

  /**
   * One statement, on a connection of the pool without a query runner (TypeORM's runner, its events and its
   * promises cost more CPU than most statements): its result as the driver answers it (rows, or the write's header).
   */
  query<T = unknown>(sql: string, values: unknown[] = [], options: { dateStrings?: boolean } = {}): Promise<T> {
    return this.withinDeadline(() => this.send<T>(sql, values, options));
  }

  /** Whether the server is MariaDB (known once the module has started), for syntax MySQL lacks such as `LIMIT … ROWS EXAMINED`. */
  get isMariaDb(): boolean {
    return this.server === 'MariaDB';
  }

  /** The rows of one statement (see query). */
  rows<T>(sql: string, values: unknown[], options: { dateStrings?: boolean } = {}): Promise<T[]> {
    return this.query<T[]>(sql, values, options);
  }

  /**
   * The rows of `sql` as a stream, opened once the first has arrived (see openRowStream): the request's deadline
   * bounds the wait for it, not the whole result, so neither DB_QUERY_TIMEOUT_MS nor the server's time limit applies.
   */
  stream(sql: string, values: unknown[], options: RowStreamOptions = {}): Promise<Readable> {
    assertDeadlineNotPassed();
    return openRowStream(this.pool, this.budgetMs, sql, values, options);
  }

  /** `work` in a transaction, retried when InnoDB chose it to break a deadlock (see inTransaction). */
  transaction<T>(work: (transaction: Transaction) => Promise<T>, options: Omit<TransactionOptions, 'budgetMs'> = {}): Promise<T> {
    return inTransaction(this.dataSource, work, { ...options, budgetMs: this.budgetMs });
  }

  /**
   * A connection of a background worker's own (a session lock or lease it holds across statements, statements that
   * must not wait behind others'), connected; the worker releases it. Its statements are TypeORM's, each bounded by
   * DB_QUERY_TIMEOUT_MS and destroyed on a timeout (DatabaseTimeoutsSubscriber).
   */
  async workerConnection(): Promise<QueryRunner> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    return runner;
  }

  /** `work` on a worker's connection (see workerConnection), released when it ends. */
  async withWorkerConnection<T>(work: (connection: QueryRunner) => Promise<T>): Promise<T> {
    const runner = await this.workerConnection();
    try {
      return await work(runner);
    } finally {
      await runner.release();
    }
  }

  /** Runs `work`, a wait of the request's database work that is not a statement of its own, within its deadline. */
  withinDeadline<T>(work: () => Promise<T>): Promise<T> {
    return withinDeadline(this.budgetMs, work);
  }

  private send<T>(sql: string, values: unknown[], options: { dateStrings?: boolean }): Promise<T> {
    assertDeadlineNotPassed();
    return new Promise((resolve, reject) => {
      this.pool.getConnection((connectError, connection) => {
        if (connectError) return reject(connectError);
        try {
          assertDeadlineNotPassed();
        } catch (error) {
          connection.release();
          return reject(error);
        }
        // Measured once the connection is ours: waiting for one in the pool uses up the deadline too.
        const limitMs = statementTimeLimitMs(this.budgetMs);
        const limited = limitMs === undefined || !this.server ? sql : withServerTimeLimit(sql, limitMs, this.server);
        connection.query(
          { sql: limited, timeout: this.budgetMs || undefined, dateStrings: options.dateStrings },
          values,
          // Called back from the connection's socket, in the context of whoever opened it (see DatabasePool.getConnection).
          inCallersContext('Database.query', (error: QueryError | null, result: unknown) => {
            // mysql2 stops waiting but leaves a timed-out statement in flight: its connection cannot serve another.
            if (error?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') this.pool.destroy(connection);
            else connection.release();
            if (error) reject(isServerTimeLimit(error) ? statementTimedOut(this.budgetMs) : error);
            else resolve(result as T);
          }),
        );
      });
    });
  }
}
