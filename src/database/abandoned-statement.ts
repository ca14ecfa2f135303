import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { PoolConnection } from 'mysql2';
import type { DatabasePool } from './database-pool.js';

const logger = new Logger('Database');
/** Bounds each of the two statements that stop an abandoned one, so a database that does not answer holds no connection. */
const STOP_TIMEOUT_MS = 5_000;

/**
 * A statement the service may have to stop in the server before it ends: a streamed list whose client went away,
 * or whose first row did not come within the request's deadline. Closing its connection is not enough: the server
 * notices a closed connection only when it next writes to it, and a statement that sorts, or that scans many rows
 * for few matches, writes nothing for seconds. No server-side time limit fits either (it would also bound the rows
 * a slow client reads after the first). So the statement starts with a mark of its own (a comment, which
 * the server shows in its process list), and `stop` looks the mark up on another connection and has the server
 * stop that statement with KILL QUERY. The id is looked up by the mark rather than taken from the connection's
 * handshake because behind a proxy, or on a Galera node reached through a balancer, the handshake's id may be
 * another connection's: a KILL by the mark stops only the statement that carries it, or nothing.
 */
export class AbandonedStatement {
  readonly sql: string;
  private readonly mark = `/* stream ${randomBytes(8).toString('hex')} */`;

  constructor(sql: string) {
    this.sql = `${this.mark} ${sql}`;
  }

  /** Stops the statement in the server if it is still running there. Never throws; best effort, logged at debug. */
  stop(pool: DatabasePool): void {
    pool.getConnection((connectError, connection) => {
      if (connectError) return logger.debug(`Could not stop an abandoned statement: ${connectError.message}`);
      void this.killOn(pool, connection).catch((error: Error) => logger.debug(`Could not stop an abandoned statement: ${error.message}`));
    });
  }

  private async killOn(pool: DatabasePool, connection: PoolConnection): Promise<void> {
    let healthy = true;
    const run = (sql: string, values: unknown[]) =>
      new Promise<unknown>((resolve, reject) =>
        connection.query({ sql, timeout: STOP_TIMEOUT_MS }, values, (error, result) => {
          if (error?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') healthy = false;
          if (error) reject(error);
          else resolve(result);
        }),
      );
    try {
      const found = (await run('SELECT ID AS id FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()', [
        `${this.mark}%`,
      ])) as Array<{ id: number }>;
      // ER_NO_SUCH_THREAD: it ended meanwhile.
      for (const { id } of found)
        await run('KILL QUERY ?', [id]).catch((error: { errno?: number }) => {
          if (error.errno !== 1094) throw error;
        });
    } finally {
      if (healthy) connection.release();
      else pool.destroy(connection);
    }
  }
}
