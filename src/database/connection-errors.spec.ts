import { EventEmitter } from 'node:events';
import type { PoolConnection } from 'mysql2';
import type { DatabasePool } from './database-pool.js';
import { QueryFailedError } from 'typeorm';
import { isLostRace, keepConnectionErrorsHandled, lostTheConnection, serverErrno } from './connection-errors.js';

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

describe("reading a failed statement's error", () => {
  const driver = (fields: object) => Object.assign(new Error('failed'), fields);
  const wrapped = (fields: object) => new QueryFailedError('UPDATE', [], driver(fields));

  it("reads the server error number from mysql2's error or from TypeORM's wrapping of it", () => {
    expect(serverErrno(driver({ errno: 1213 }))).toBe(1213);
    expect(serverErrno(wrapped({ errno: 1062 }))).toBe(1062);
    expect(serverErrno(driver({ code: 'ECONNRESET' }))).toBeUndefined();
    expect(serverErrno(undefined)).toBeUndefined();
  });

  it("counts a deadlock (Galera's failed certification too) and a lock wait timeout as a lost race, nothing else", () => {
    expect(isLostRace(wrapped({ errno: 1213 }))).toBe(true);
    expect(isLostRace(driver({ errno: 1205 }))).toBe(true);
    expect(isLostRace(wrapped({ errno: 1062 }))).toBe(false);
    expect(isLostRace(driver({ code: 'PROTOCOL_CONNECTION_LOST', fatal: true }))).toBe(false);
  });

  it('tells a statement that failed with its connection', () => {
    expect(lostTheConnection(wrapped({ code: 'PROTOCOL_CONNECTION_LOST', fatal: true }))).toBe(true);
    expect(lostTheConnection(driver({ errno: 1927, fatal: true }))).toBe(true);
    expect(lostTheConnection(wrapped({ errno: 1406 }))).toBe(false);
  });
});
