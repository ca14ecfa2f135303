import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { keepConnectionErrorsHandled } from './connection-errors.js';
import { DatabasePool } from './database-pool.js';
import { ensureDatabase } from './ensure-database.js';
import { mysqlPoolOptions } from './mysql-pool-options.js';

/** The service's one database pool, made once the database exists (ensureDatabase); TypeORM's DataSource ends it. */
@Module({
  providers: [
    {
      provide: DatabasePool,
      inject: [ConfigService],
      useFactory: async (config: ConfigService<AppConfig, true>) => {
        const db = config.get('db', { infer: true });
        await ensureDatabase(db);
        return keepConnectionErrorsHandled(new DatabasePool(mysqlPoolOptions(db)));
      },
    },
  ],
  exports: [DatabasePool],
})
export class DatabasePoolModule {}
