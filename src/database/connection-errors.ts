import type { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';

interface Pool extends EventEmitter {
  /** A Denque. */
  _allConnections?: { toArray(): EventEmitter[] };
}

const logger = new Logger('Database');

/**
 * Gives every connection of the pool an 'error' listener for its whole life. mysql2's own listener on a pooled
 * connection is a `once`, and a broken connection can report its error twice (its socket's reset while it closes
 * after the first): with no listener left, the second would be thrown and end the process. The error itself reaches
 * the statement that was running, if any; this only keeps it from being thrown a second time.
 */
export function keepConnectionErrorsHandled(dataSource: DataSource): DataSource {
  const pool = (dataSource.driver as unknown as { pool?: Pool }).pool;
  if (!pool) return dataSource;
  const listen = (connection: EventEmitter) => connection.on('error', (error: Error) => logger.debug(`Connection lost: ${error.message}`));
  for (const connection of pool._allConnections?.toArray() ?? []) listen(connection);
  pool.on('connection', listen);
  return dataSource;
}
