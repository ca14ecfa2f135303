import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { ensureDatabase } from './ensure-database.js';
import { setRequestDeadlineBudget } from './request-deadline.js';
import { runMigrations } from './run-migrations.js';
import { typeOrmOptions } from './typeorm-options.js';

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
      dataSourceFactory: async (options) => runMigrations(await new DataSource(options!).initialize()),
    }),
  ],
})
export class DatabaseModule {
  constructor(config: ConfigService<AppConfig, true>) {
    setRequestDeadlineBudget(config.get('db.queryTimeoutMs', { infer: true }));
  }
}
