import { EventEmitter } from 'node:events';
import type { DataSource } from 'typeorm';
import { keepConnectionErrorsHandled } from './connection-errors.js';

describe('keepConnectionErrorsHandled', () => {
  /** A pooled connection as mysql2 makes it: one `once('error')` listener of its own. */
  function pooledConnection(): EventEmitter {
    const connection = new EventEmitter();
    connection.once('error', () => undefined);
    return connection;
  }

  it('keeps a second error of a connection, existing or made later, from being thrown', () => {
    const existing = pooledConnection();
    const pool = Object.assign(new EventEmitter(), { _allConnections: { toArray: () => [existing] } });
    keepConnectionErrorsHandled({ driver: { pool } } as unknown as DataSource);
    const later = pooledConnection();
    pool.emit('connection', later);
    for (const connection of [existing, later]) {
      connection.emit('error', new Error('read ECONNRESET'));
      expect(() => connection.emit('error', new Error('read ECONNRESET'))).not.toThrow();
    }
  });
});
