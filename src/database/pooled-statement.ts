import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { DatabasePool } from './database-pool.js';
import { assertDeadlineNotPassed } from './request-deadline.js';

/**
 * One statement on a connection of the service's pool, without a query runner: for the reads that are one
 * statement, where TypeORM's runner, its events and its promises cost more CPU than the statement itself. The same
 * rules as every statement through TypeORM (DatabaseTimeoutsSubscriber): none goes out past the request's deadline,
 * each is bounded by DB_QUERY_TIMEOUT_MS, and a connection whose statement timed out is destroyed, not reused.
 */
@Injectable()
export class PooledStatement {
  private readonly timeoutMs: number | undefined;

  constructor(
    private readonly pool: DatabasePool,
    config: ConfigService<AppConfig, true>,
  ) {
    this.timeoutMs = config.get('db.queryTimeoutMs', { infer: true }) || undefined;
  }

  rows<T>(sql: string, values: unknown[], options: { dateStrings?: boolean } = {}): Promise<T[]> {
    assertDeadlineNotPassed();
    return new Promise((resolve, reject) => {
      this.pool.getConnection((connectError, connection) => {
        if (connectError) return reject(connectError);
        connection.query({ sql, timeout: this.timeoutMs, dateStrings: options.dateStrings }, values, (error, rows) => {
          // mysql2 stops waiting but leaves a timed-out statement in flight: its connection cannot serve another.
          if (error?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') this.pool.destroy(connection);
          else connection.release();
          if (error) reject(error);
          else resolve(rows as T[]);
        });
      });
    });
  }
}
