import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { assertDeadlineNotPassed } from './request-deadline.js';

/** The part of mysql2's callback API this uses. */
interface PoolConnection {
  query(options: { sql: string; timeout?: number; dateStrings?: boolean }, values: unknown[], callback: (error: StatementError | null, rows: unknown) => void): void;
  release(): void;
  destroy(): void;
}
interface Pool {
  getConnection(callback: (error: StatementError | null, connection: PoolConnection) => void): void;
}
type StatementError = Error & { code?: string };

/**
 * One statement on a connection of TypeORM's own mysql2 pool, without a query runner: for the reads that are one
 * statement, where TypeORM's runner, its events and its promises cost more CPU than the statement itself. The same
 * rules as every statement through TypeORM (DatabaseTimeoutsSubscriber): none goes out past the request's deadline,
 * each is bounded by DB_QUERY_TIMEOUT_MS, and a connection whose statement timed out is destroyed, not reused.
 */
@Injectable()
export class PooledStatement {
  private readonly pool: Pool;
  private readonly timeoutMs: number | undefined;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.pool = (dataSource.driver as unknown as { pool: Pool }).pool;
    const { enableQueryTimeout, maxQueryExecutionTime } = dataSource.options as { enableQueryTimeout?: boolean; maxQueryExecutionTime?: number };
    this.timeoutMs = enableQueryTimeout ? maxQueryExecutionTime : undefined;
  }

  rows<T>(sql: string, values: unknown[], options: { dateStrings?: boolean } = {}): Promise<T[]> {
    assertDeadlineNotPassed();
    return new Promise((resolve, reject) => {
      this.pool.getConnection((connectError, connection) => {
        if (connectError) return reject(connectError);
        connection.query({ sql, timeout: this.timeoutMs, dateStrings: options.dateStrings }, values, (error, rows) => {
          // mysql2 stops waiting but leaves a timed-out statement in flight: its connection cannot serve another.
          if (error?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') connection.destroy();
          else connection.release();
          if (error) reject(error);
          else resolve(rows as T[]);
        });
      });
    });
  }
}
