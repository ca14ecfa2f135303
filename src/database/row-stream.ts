import { Logger } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { DatabasePool } from './database-pool.js';
import { databaseTimeout, requestDeadline } from './request-deadline.js';

const logger = new Logger('Database');

/** MariaDB's and MySQL's ER_NO_SUCH_THREAD: the statement to stop had already ended with its connection. */
const NO_SUCH_THREAD = 1094;

export interface RowStreamOptions {
  dateStrings?: boolean;
  /** How many rows may wait in the stream before the connection stops reading from the server. */
  highWaterMark?: number;
}

/**
 * Opens `sql` as a stream of its rows (mysql2's query stream): resolves once the first row has arrived (or the
 * statement ended without one), with the stream holding it. The request's deadline covers only that: past it
 * the statement is stopped and the promise rejects with the 503; once open, the rows flow as fast as the
 * stream is read, with back-pressure down to the server (mysql2 stops reading the socket while the stream is
 * full). The connection goes back to the pool when the last row has arrived. Destroying the stream before
 * its end, or an error, stops the statement: its connection is destroyed (mysql2 would otherwise read the rest
 * of the result to free it) and the server is told to KILL QUERY, as a server only notices a closed connection
 * once it has rows to send (a sort, say, runs on until then).
 */
export function openRowStream(pool: DatabasePool, sql: string, values: unknown[], options: RowStreamOptions = {}): Promise<Readable> {
  const deadline = requestDeadline();
  return new Promise((resolve, reject) => {
    let waiting = true;
    let stop: (() => void) | undefined;
    const fail = (error: unknown) => {
      if (!waiting) return;
      waiting = false;
      clearTimeout(timer);
      stop?.();
      reject(error);
    };
    const timer = deadline ? setTimeout(() => fail(databaseTimeout(deadline.budgetMs)), deadline.at - Date.now()) : undefined;
    pool.getConnection((connectError, connection) => {
      if (connectError) return fail(connectError);
      if (!waiting) return connection.release();
      const query = connection.query({ sql, dateStrings: options.dateStrings }, values);
      const rows = query.stream({ highWaterMark: options.highWaterMark });
      let held = true;
      stop = () => {
        if (!held) return;
        held = false;
        pool.destroy(connection);
        killQuery(pool, connection.threadId);
      };
      const open = () => {
        if (!waiting) return;
        waiting = false;
        clearTimeout(timer);
        resolve(rows);
      };
      query.once('result', open);
      // mysql2 tells a lost connection to the connection, not to a query without callback.
      const failed = (error: Error) => {
        rows.destroy(error);
        stop?.();
        fail(error);
      };
      connection.once('error', failed);
      query.once('error', failed);
      query.once('end', () => {
        connection.removeListener('error', failed);
        open();
        if (held) connection.release();
        held = false;
      });
      // Destroyed before its end: by the reader (a client gone), or by mysql2 on an error.
      rows.once('close', () => stop?.());
    });
  });
}

/** Tells the server to stop the statement of the connection `threadId` (already destroyed here), on another connection. */
function killQuery(pool: DatabasePool, threadId: number | null): void {
  if (threadId === null) return;
  pool.getConnection((connectError, connection) => {
    if (connectError) return logger.warn(`Could not stop an abandoned statement (thread ${threadId}): ${connectError.message}`);
    connection.query('KILL QUERY ?', [threadId], (error) => {
      connection.release();
      if (error && error.errno !== NO_SUCH_THREAD)
        logger.warn(`Could not stop an abandoned statement (thread ${threadId}): ${error.message}`);
    });
  });
}
