import { createPool, type Pool, type PoolConnection, type PoolOptions } from 'mysql2';
import { inCallersContext } from './callers-context.js';

/** How the pool's connections are used at a moment (Spring's DataSourcePoolMetrics, plus the requests waiting). */
export interface PoolUsage {
  active: number;
  idle: number;
  pending: number;
  max: number;
}

type ConnectionCallback = (error: NodeJS.ErrnoException | null, connection: PoolConnection) => void;

/**
 * The service's one pool of database connections: mysql2's, created here and shared by TypeORM (through its public
 * `driver` option, see typeOrmDriver), Database and the db health check. mysql2 publishes no statistics, so
 * the usage is counted here: open connections from the pool's 'connection' event and each connection's 'end' and
 * 'error' (or destroy), idle ones from 'release' and 'acquire', waiting requests from getConnection's own calls.
 */
export class DatabasePool {
  readonly max: number;
  private readonly pool: Pool;
  private readonly open = new Set<PoolConnection>();
  private readonly idle = new Set<PoolConnection>();
  private pending = 0;
  private ended?: Promise<void>;

  constructor(options: PoolOptions) {
    this.pool = createPool(options);
    this.max = options.connectionLimit ?? 10;
    this.pool.on('connection', (connection) => {
      this.open.add(connection);
      const gone = () => this.forget(connection);
      connection.on('end', gone).on('error', gone);
    });
    this.pool.on('acquire', (connection) => this.idle.delete(connection));
    this.pool.on('release', (connection) => {
      if (this.open.has(connection)) this.idle.add(connection);
    });
  }

  /**
   * `callback` runs in the asynchronous context of this call. mysql2 calls a waiting request back from the release of
   * a connection, in whatever context the releaser ran: that of the request whose statement opened the connection's
   * socket, long finished, whose deadline would then judge this one (seen as 503s of requests a few ms old under load).
   */
  getConnection(callback: ConnectionCallback): void {
    this.pending++;
    const answer = inCallersContext('DatabasePool.getConnection', callback);
    this.pool.getConnection((error, connection) => {
      this.pending--;
      answer(error, connection);
    });
  }

  /** A connection that must not serve another statement (one timed out, or a check hung): out of the pool, closed. */
  destroy(connection: PoolConnection): void {
    this.forget(connection);
    connection.destroy();
  }

  /** `listener` gets every connection the pool opens, before its first use. */
  onConnection(listener: (connection: PoolConnection) => void): void {
    this.pool.on('connection', listener);
  }

  usage(): PoolUsage {
    return { active: this.open.size - this.idle.size, idle: this.idle.size, pending: this.pending, max: this.max };
  }

  /** Closes the pool; TypeORM's DataSource calls it when destroyed. Later calls wait for the same end. */
  end(callback: (error: Error | null) => void = () => undefined): void {
    this.ended ??= new Promise((resolve, reject) => this.pool.end((error) => (error ? reject(error) : resolve())));
    this.ended.then(
      () => callback(null),
      (error: Error) => callback(error),
    );
  }

  /**
   * TypeORM's `driver` option, documented as the driver module it loads (mysql2 by default): TypeORM asks it to
   * create its pool, and gets this one, so that TypeORM's query runners and everything else share one pool.
   */
  typeOrmDriver(): { createPool(): DatabasePool } {
    return { createPool: () => this };
  }

  private forget(connection: PoolConnection): void {
    this.open.delete(connection);
    this.idle.delete(connection);
  }
}
