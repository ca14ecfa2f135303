import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import type { Readable } from 'node:stream';
import { DatabasePool } from './database-pool.js';
import { openRowStream, type RowStreamOptions } from './row-stream.js';
import { assertDeadlineNotPassed, statementTimedOut, statementTimeLimitMs } from './request-deadline.js';
import { type DatabaseServer, databaseServer, isServerTimeLimit, withServerTimeLimit } from './statement-time-limit.js';

/**
 * One statement on a connection of the service's pool, without a query runner: for the reads that are one
 * statement, where TypeORM's runner, its events and its promises cost more CPU than the statement itself. The same
 * rules as every statement through TypeORM (DatabaseTimeoutsSubscriber): none goes out past the request's deadline,
 * each is bounded by DB_QUERY_TIMEOUT_MS, and a connection whose statement timed out is destroyed, not reused.
 * Beyond those, the server stops each of these statements itself when the request's deadline passes, so no
 * abandoned read goes on running there, and its connection goes back to the pool clean.
 */
@Injectable()
export class PooledStatement implements OnModuleInit {
  private readonly timeoutMs: number | undefined;
  private server?: DatabaseServer;

  constructor(
    private readonly pool: DatabasePool,
    @InjectDataSource() private readonly dataSource: DataSource,
    config: ConfigService<AppConfig, true>,
  ) {
    this.timeoutMs = config.get('db.queryTimeoutMs', { infer: true }) || undefined;
  }

  async onModuleInit(): Promise<void> {
    this.server = await databaseServer(this.dataSource);
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
          if (error?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') this.pool.destroy(connection);
          else connection.release();
          if (error) reject(isServerTimeLimit(error) ? statementTimedOut() : error);
          else resolve(rows as T[]);
        });
      });
    });
  }

  /**
   * The rows of `sql` as a stream, opened once the first has arrived (see openRowStream): the request's deadline
   * bounds the wait for it, not the whole result, so neither DB_QUERY_TIMEOUT_MS nor the server's time limit applies.
   */
  stream(sql: string, values: unknown[], options: RowStreamOptions = {}): Promise<Readable> {
    assertDeadlineNotPassed();
    return openRowStream(this.pool, sql, values, options);
  }
}
