import type { PoolConnection, RowDataPacket } from 'mysql2';
import type { DatabasePool } from './database-pool.js';

/**
 * A connection of the pool answers a ping (what JDBC 4's `isValid()` checks), then `SELECT VERSION()`; answers the
 * server's version string. A check aborted by `signal` (it hung) drops its connection instead of returning it, so a
 * hung check never keeps a slot of the pool.
 */
export async function checkConnection(pool: DatabasePool, signal: AbortSignal): Promise<string> {
  const connection = await callback<PoolConnection>((done) => pool.getConnection(done));
  if (signal.aborted) {
    connection.release();
    throw signal.reason;
  }
  const drop = () => pool.destroy(connection);
  signal.addEventListener('abort', drop, { once: true });
  try {
    await callback<void>((done) => connection.ping((error) => done(error)));
    const rows = await callback<RowDataPacket[]>((done) => connection.query<RowDataPacket[]>('SELECT VERSION() AS version', done));
    connection.release();
    return String(rows[0]?.version);
  } catch (error) {
    drop();
    throw error;
  } finally {
    signal.removeEventListener('abort', drop);
  }
}

function callback<T>(run: (done: (error: Error | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value as T))));
}
