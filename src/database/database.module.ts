import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { keepConnectionErrorsHandled } from './connection-errors.js';
import { ensureDatabase } from './ensure-database.js';
import { PooledStatement } from './pooled-statement.js';
import { setRequestDeadlineBudget } from './request-deadline.js';
import { runMigrations } from './run-migrations.js';
import { typeOrmOptions } from './typeorm-options.js';

/** The database connection (TypeORM's DataSource, migrated at start-up) and PooledStatement, for every module. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [ConfigService],
      useFactory: async (config: ConfigService<AppConfig, true>) => {
        const db = config.get('db', { infer: true });
        await ensureDatabase(db);
        return { ...typeOrmOptions(db), retryAttempts: 3, retryDelay: 2_000 };
      },
      // Connect, then migrate, saying which migrations ran (typeOrmOptions leaves migrationsRun off for this).
      dataSourceFactory: async (options) => runMigrations(keepConnectionErrorsHandled(await new DataSource(options!).initialize())),
    }),
  ],
  providers: [PooledStatement],
  exports: [PooledStatement],
})
export class DatabaseModule {
  constructor(config: ConfigService<AppConfig, true>) {
    setRequestDeadlineBudget(config.get('db.queryTimeoutMs', { infer: true }));
  }
}
