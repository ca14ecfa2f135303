import type { PoolConnection } from 'mysql2';
import { parseConfig } from '../../src/config/app-config.js';
import { DatabasePool } from '../../src/database/database-pool.js';
import { ensureDatabase } from '../../src/database/ensure-database.js';
import { mysqlPoolOptions } from '../../src/database/mysql-pool-options.js';
import { currentRequestContext, runInRequestContext } from '../../src/common/context/request-context.js';

describe('DatabasePool (against MariaDB)', () => {
  const db = parseConfig(process.env).db;
  let pool: DatabasePool;

  beforeAll(() => ensureDatabase(db, 1));
  beforeEach(() => (pool = new DatabasePool({ ...mysqlPoolOptions(db), connectionLimit: 2 })));
  afterEach(() => new Promise((resolve) => pool.end(resolve)));

  const take = () =>
    new Promise<PoolConnection>((resolve, reject) =>
      pool.getConnection((error, connection) => (error ? reject(error) : resolve(connection))),
    );

  it('counts connections in use, idle, and requests waiting for one, from its own and mysql2 public events', async () => {
    expect(pool.usage()).toEqual({ active: 0, idle: 0, pending: 0, max: 2 });
    const [first, second] = await Promise.all([take(), take()]);
    expect(pool.usage()).toEqual({ active: 2, idle: 0, pending: 0, max: 2 });
    const third = take();
    expect(pool.usage().pending).toBe(1);
    first.release();
    // Released to a waiting request, the connection stays in use.
    const handedOver = await third;
    expect(handedOver).toBe(first);
    expect(pool.usage()).toEqual({ active: 2, idle: 0, pending: 0, max: 2 });
    second.release();
    expect(pool.usage()).toEqual({ active: 1, idle: 1, pending: 0, max: 2 });
    pool.destroy(handedOver);
    expect(pool.usage()).toEqual({ active: 0, idle: 1, pending: 0, max: 2 });
  });

  it('calls a waiting request back in its own context, not in that of the request whose statement released the connection', async () => {
    const contextOf = () => currentRequestContext()?.requestId;
    // Opened in request a's context: mysql2 calls back from the connection's socket in that context from then on.
    const [first, second] = await runInRequestContext({ requestId: 'a' }, () => Promise.all([take(), take()]));
    const waiting = runInRequestContext(
      { requestId: 'b' },
      () =>
        new Promise<string | undefined>((resolve, reject) =>
          pool.getConnection((error, connection) => (error ? reject(error) : (connection.release(), resolve(contextOf())))),
        ),
    );
    // Released from a statement's callback on the socket, as Database releases it.
    first.query('SELECT 1', () => first.release());
    expect(await waiting).toBe('b');
    second.release();
  });

  it('gives every connection it opens to the connection listeners, and ends once however often asked', async () => {
    const opened: PoolConnection[] = [];
    pool.onConnection((connection) => opened.push(connection));
    const connection = await take();
    expect(opened).toEqual([connection]);
    connection.release();
    await Promise.all([new Promise((resolve) => pool.end(resolve)), new Promise((resolve) => pool.end(resolve))]);
  });
});
