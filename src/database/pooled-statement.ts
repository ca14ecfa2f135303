import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { assertDeadlineNotPassed, statementTimedOut, statementTimeLimitMs } from './request-deadline.js';
import { type DatabaseServer, databaseServerOf, isServerTimeLimit, withServerTimeLimit } from './statement-time-limit.js';

/** The part of mysql2's callback API this uses. */
interface PoolConnection {
  query(options: { sql: string; timeout?: number; dateStrings?: boolean }, values: unknown[], callback: (error: StatementError | null, rows: unknown) => void): void;
  release(): void;
  destroy(): void;
}
interface Pool {
  getConnection(callback: (error: StatementError | null, connection: PoolConnection) => void): void;
}
type StatementError = Error & { code?: string; errno?: number };

/**
 * One statement on a connection of TypeORM's own mysql2 pool, without a query runner: for the reads that are one
 * statement, where TypeORM's runner, its events and its promises cost more CPU than the statement itself. The same
 * rules as every statement through TypeORM (DatabaseTimeoutsSubscriber): none goes out past the request's deadline,
 * each is bounded by DB_QUERY_TIMEOUT_MS, and a connection whose statement timed out is destroyed, not reused.
 * Beyond those, the server stops each of these statements itself when the request's deadline passes, so no
 * abandoned read goes on running there, and its connection goes back to the pool clean.
 */
@Injectable()
export class PooledStatement implements OnModuleInit {
  private readonly pool: Pool;
  private readonly timeoutMs: number | undefined;
  private server?: DatabaseServer;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.pool = (dataSource.driver as unknown as { pool: Pool }).pool;
    const { enableQueryTimeout, maxQueryExecutionTime } = dataSource.options as { enableQueryTimeout?: boolean; maxQueryExecutionTime?: number };
    this.timeoutMs = enableQueryTimeout ? maxQueryExecutionTime : undefined;
  }

  async onModuleInit(): Promise<void> {
    const [{ version }] = await this.rows<{ version: string }>('SELECT VERSION() AS version', []);
    this.server = databaseServerOf(version);
  }

  rows<T>(sql: string, values: unknown[], options: { dateStrings?: boolean } = {}): Promise<T[]> {
    assertDeadlineNotPassed();
    return new Promise((resolve, reject) => {
      this.pool.getConnection((connectError, connection) => {
        if (connectError) return reject(connectError);
        // Measured once the connection is ours: waiting for one in the pool uses up the deadline too.
        const limitMs = statementTimeLimitMs();
        const limited = limitMs === undefined || !this.server ? sql : withServerTimeLimit(sql, limitMs, this.server);
        connection.query({ sql: limited, timeout: this.timeoutMs, dateStrings: options.dateStrings }, values, (error, rows) => {
          // mysql2 stops waiting but leaves a timed-out statement in flight: its connection cannot serve another.
          if (error?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') connection.destroy();
          else connection.release();
          if (error) reject(isServerTimeLimit(error) ? statementTimedOut() : error);
          else resolve(rows as T[]);
        });
      });
    });
  }
}
