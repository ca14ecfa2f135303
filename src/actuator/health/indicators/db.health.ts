import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { AppConfig } from '../../../config/app-config.js';
import { checkConnection } from '../../../database/connection-check.js';
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
    return probe(this.health, key, this.timeoutMs, async (signal) => {
      const version = await checkConnection(this.pool, signal);
      this.product ??= productName(version);
      return { up: true, details: { database: this.product, validationQuery: 'isValid()' } };
    });
  }
}

/** MariaDB names itself in its version string ("10.11.6-MariaDB-0+deb12u1"); MySQL does not. */
function productName(version: string): string {
  return /mariadb/i.test(version) ? 'MariaDB' : 'MySQL';
}
