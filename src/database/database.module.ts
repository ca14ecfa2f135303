import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { DatabasePool } from './database-pool.js';
import { DatabasePoolModule } from './database-pool.module.js';
import { Database } from './database.js';
import { runMigrations } from './run-migrations.js';
import { typeOrmOptions } from './typeorm-options.js';
import { databaseTimeoutsSubscriber } from './database-timeouts.subscriber.js';

/**
 * The database for every module: the pool (DatabasePool), TypeORM's DataSource on that same pool (migrated at
 * start-up), and Database, the one way of the features to it.
 */
@Global()
@Module({
  imports: [
    DatabasePoolModule,
    TypeOrmModule.forRootAsync({
      imports: [DatabasePoolModule],
      inject: [ConfigService, DatabasePool],
      useFactory: (config: ConfigService<AppConfig, true>, pool: DatabasePool) => ({
        ...typeOrmOptions(config.get('db', { infer: true })),
        driver: pool.typeOrmDriver(),
        subscribers: [databaseTimeoutsSubscriber((connection) => pool.destroy(connection))],
        // The entities of the feature modules (TypeOrmModule.forFeature), so that the database knows no feature.
        autoLoadEntities: true,
        // No retries: a failed attempt ends the pool, which a retry could not use again. Waiting for the database
        // to come up is ensureDatabase's, before the pool exists.
        retryAttempts: 0,
      }),
      // Connect, then migrate, saying which migrations ran (typeOrmOptions leaves migrationsRun off for this).
      dataSourceFactory: async (options) => runMigrations(await new DataSource(options!).initialize()),
    }),
  ],
  providers: [Database],
  exports: [DatabasePoolModule, Database],
})
export class DatabaseModule {}
