import { Logger } from '@nestjs/common';
import type { DatabasePool } from './database-pool.js';

const logger = new Logger('Database');

/**
 * Gives every connection of the pool an 'error' listener for its whole life. mysql2's own listener on a pooled
 * connection is a `once`, and a broken connection can report its error twice (its socket's reset while it closes
 * after the first): with no listener left, the second would be thrown and end the process. The error itself reaches
 * the statement that was running, if any; this only keeps it from being thrown a second time. Called before the pool
 * opens its first connection.
 */
export function keepConnectionErrorsHandled(pool: DatabasePool): DatabasePool {
  pool.onConnection((connection) => connection.on('error', (error: Error) => logger.debug(`Connection lost: ${error.message}`)));
  return pool;
}

/** The server's error number of a failed statement, as mysql2 gives it (also wrapped in TypeORM's QueryFailedError). */
export function serverErrno(error: unknown): number | undefined {
  const driverError = ((error as { driverError?: unknown } | undefined)?.driverError ?? error) as { errno?: unknown } | undefined;
  return typeof driverError?.errno === 'number' ? driverError.errno : undefined;
}
