import type { PoolOptions } from 'mysql2';
import type { AppConfig } from '../config/app-config.js';

/**
 * The settings of the service's mysql2 pool, the one pool every statement uses (DatabasePool; TypeORM gets the same
 * pool as its `driver`).
 */
export function mysqlPoolOptions(db: AppConfig['db']): PoolOptions {
  return {
    host: db.host,
    port: db.port,
    user: db.username,
    password: db.password,
    database: db.database,
    charset: 'utf8mb4_unicode_ci',
    // Timestamps are written and read as UTC so the API can serve them with a "Z".
    timezone: 'Z',
    // Connecting is bounded like every statement (see typeOrmOptions); 0 turns the bound off.
    connectTimeout: db.queryTimeoutMs || undefined,
    // What TypeORM sets for a pool of its own: BIGINT and DECIMAL as strings, an object in a value as a string.
    supportBigNumbers: true,
    bigNumberStrings: true,
    stringifyObjects: true,
    connectionLimit: 20,
    enableKeepAlive: true,
    // mysql2 would capture a stack trace for every statement, only to decorate the rare error with it.
    trace: false,
    // Batches of statements go out in one round trip (StatementBatch), every value a bound parameter.
    multipleStatements: true,
  };
}
