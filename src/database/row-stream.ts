import type { Readable } from 'node:stream';
import { AbandonedStatement } from './abandoned-statement.js';
import type { DatabasePool } from './database-pool.js';
import { databaseTimeout, requestDeadline } from './request-deadline.js';

export interface RowStreamOptions {
  dateStrings?: boolean;
  /** Each row as an array of its columns' bytes, as the server sent them (no decoding). */
  bytes?: boolean;
  /** How many rows may wait in the stream before the connection stops reading from the server. */
  highWaterMark?: number;
}

/**
 * Opens `sql` as a stream of its rows (mysql2's query stream): resolves once the first row has arrived (or the
 * statement ended without one), with the stream holding it. The request's deadline covers only that: past it the
 * promise rejects with the 503; once open, the rows flow as fast as the stream is read, with back-pressure down to
 * the server (mysql2 stops reading the socket while the stream is full). The connection goes back to the pool when
 * the last row has arrived. Destroying the stream before its end, an error, or the deadline destroys the connection
 * (mysql2 would otherwise read the rest of the result to free it) and stops the statement in the server
 * (AbandonedStatement): nothing of an abandoned list goes on running there, neither a long sort before the first row
 * nor a scan between two far-apart matches. The server's time limit is not used: it would bound the whole stream,
 * however long the client takes to read.
 */
export function openRowStream(
  pool: DatabasePool,
  budgetMs: number,
  sql: string,
  values: unknown[],
  options: RowStreamOptions = {},
): Promise<Readable> {
  const deadline = requestDeadline(budgetMs);
  const statement = new AbandonedStatement(sql);
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
      const query = connection.query(
        { sql: statement.sql, dateStrings: options.dateStrings, ...(options.bytes && { rowsAsArray: true, typeCast: false }) },
        values,
      );
      const rows = query.stream({ highWaterMark: options.highWaterMark });
      let held = true;
      stop = () => {
        if (!held) return;
        held = false;
        pool.destroy(connection);
        statement.stop(pool);
      };
      const open = () => {
        if (!waiting) return;
        waiting = false;
        clearTimeout(timer);
        resolve(rows);
      };
      query.once('result', open);
      // mysql2 tells a lost connection to the connection, not to a query without callback; a query's error goes
      // to the stream too, which must have a listener of its own while no reader holds it (an 'error' emitted
      // without one is thrown out of the socket's handler). It stays: destroy(error) emits once more.
      const failed = (error: Error) => {
        rows.destroy(error);
        stop?.();
        fail(error);
      };
      connection.once('error', failed);
      rows.on('error', failed);
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
