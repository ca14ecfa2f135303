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

/** The driver's error behind a failed statement's: mysql2's own, or the one TypeORM's QueryFailedError wraps. */
function driverError(error: unknown): { errno?: unknown; fatal?: unknown } | undefined {
  return ((error as { driverError?: unknown } | undefined)?.driverError ?? error) as { errno?: unknown; fatal?: unknown } | undefined;
}

/** The server's error number of a failed statement, as mysql2 gives it (also wrapped in TypeORM's QueryFailedError). */
export function serverErrno(error: unknown): number | undefined {
  const errno = driverError(error)?.errno;
  return typeof errno === 'number' ? errno : undefined;
}

/** Whether the statement failed with its connection (mysql2 marks such an error fatal): the server's answer, if any, was lost. */
export function lostTheConnection(error: unknown): boolean {
  return driverError(error)?.fatal === true;
}

/** Error numbers of a lost race for a row: a deadlock, a lock wait timeout; Galera answers a failed certification as a deadlock. */
const LOST_RACE = new Set([1213, 1205]);

/** Whether a statement lost a race for a row (a lease row, say) to another transaction: nothing of its transaction was written. */
export function isLostRace(error: unknown): boolean {
  const errno = serverErrno(error);
  return errno !== undefined && LOST_RACE.has(errno);
}
