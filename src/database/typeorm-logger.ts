import { Logger } from '@nestjs/common';
import type { Logger as TypeOrmLogger } from 'typeorm';

/**
 * TypeORM's messages through the application's logger, never its default console.log: one structured line
 * each, and without query parameters, which hold what clients sent. Failed queries are not logged here;
 * the error filter logs the failures that matter, once, with their request.
 */
export class NestTypeOrmLogger implements TypeOrmLogger {
  private readonly logger = new Logger('Database');

  logQuery(): void {}

  logQueryError(): void {}

  logQuerySlow(time: number, query: string, _parameters?: unknown): void {
    this.logger.warn(`Slow query (${time} ms): ${query.replace(/\s+/g, ' ').slice(0, 300)}`);
  }

  logSchemaBuild(): void {}

  logMigration(message: string): void {
    this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
    else this.logger.log(String(message));
  }
}
