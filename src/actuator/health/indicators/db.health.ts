import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { PoolConnection, RowDataPacket } from 'mysql2';
import type { AppConfig } from '../../../config/app-config.js';
import { DatabasePool } from '../../../database/database-pool.js';
import { probe } from '../health-probe.js';

/**
 * Spring's db component: a connection from the application's own pool answers a ping, the check Spring Boot 3
 * reports as `isValid()` for JDBC 4 drivers. `database` is the server's product, as JDBC's getDatabaseProductName().
 */
@Injectable()
export class DbHealthIndicator {
  private readonly timeoutMs: number;
  private product?: string;

  constructor(
    private readonly pool: DatabasePool,
    private readonly health: HealthIndicatorService,
    config: ConfigService<AppConfig, true>,
  ) {
    this.timeoutMs = config.get('management.healthTimeoutMs', { infer: true });
  }

  check<Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    return probe(this.health, key, this.timeoutMs, (signal) =>
      this.withConnection(signal, async (connection) => {
        await callback<void>((done) => connection.ping((error) => done(error)));
        this.product ??= productName(
          await callback<RowDataPacket[]>((done) => connection.query<RowDataPacket[]>('SELECT VERSION() AS version', done)),
        );
        return { up: true, details: { database: this.product, validationQuery: 'isValid()' } };
      }),
    );
  }

  private async withConnection<T>(signal: AbortSignal, use: (connection: PoolConnection) => Promise<T>): Promise<T> {
    const connection = await callback<PoolConnection>((done) => this.pool.getConnection(done));
    if (signal.aborted) {
      connection.release();
      throw signal.reason;
    }
    // A hung check would keep its connection out of the pool for good; dropping it frees the slot for requests.
    const drop = () => this.pool.destroy(connection);
    signal.addEventListener('abort', drop, { once: true });
    try {
      const result = await use(connection);
      connection.release();
      return result;
    } catch (error) {
      drop();
      throw error;
    } finally {
      signal.removeEventListener('abort', drop);
    }
  }
}

function callback<T>(run: (done: (error: Error | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value as T))));
}

/** MariaDB names itself in its version string ("10.11.6-MariaDB-0+deb12u1"); MySQL does not. */
function productName(rows: RowDataPacket[]): string {
  return /mariadb/i.test(String(rows[0]?.version)) ? 'MariaDB' : 'MySQL';
}
