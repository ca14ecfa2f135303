import { EventEmitter } from 'node:events';
import type { PoolConnection } from 'mysql2';
import type { DatabasePool } from './database-pool.js';
import { keepConnectionErrorsHandled } from './connection-errors.js';

describe('keepConnectionErrorsHandled', () => {
  /** A pooled connection as mysql2 makes it: one `once('error')` listener of its own. */
  function pooledConnection(): EventEmitter {
    const connection = new EventEmitter();
    connection.once('error', () => undefined);
    return connection;
  }

  it('keeps a second error of every connection the pool opens from being thrown', () => {
    const opened = new EventEmitter();
    const pool = { onConnection: (listener: (connection: PoolConnection) => void) => opened.on('connection', listener) };
    keepConnectionErrorsHandled(pool as Pick<DatabasePool, 'onConnection'> as DatabasePool);
    const connection = pooledConnection();
    opened.emit('connection', connection);
    connection.emit('error', new Error('read ECONNRESET'));
    expect(() => connection.emit('error', new Error('read ECONNRESET'))).not.toThrow();
  });
});
