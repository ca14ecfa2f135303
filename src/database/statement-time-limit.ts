import type { DataSource } from 'typeorm';

/** The servers the service runs on, as the db health component names them. */
export type DatabaseServer = 'MariaDB' | 'MySQL';

export function databaseServerOf(version: string): DatabaseServer {
  return /mariadb/i.test(version) ? 'MariaDB' : 'MySQL';
}

const servers = new WeakMap<DataSource, Promise<DatabaseServer>>();

/** MariaDB or MySQL, asked once per data source (transactions and Database share the answer). */
export function databaseServer(dataSource: DataSource): Promise<DatabaseServer> {
  let server = servers.get(dataSource);
  if (!server) {
    server = (dataSource.query('SELECT VERSION() AS version') as Promise<Array<{ version: string }>>).then(([{ version }]) =>
      databaseServerOf(version),
    );
    servers.set(dataSource, server);
    server.catch(() => servers.delete(dataSource)); // asked again next time
  }
  return server;
}

/**
 * `sql`, one statement, for the server to stop by itself after `ms`: MariaDB's SET STATEMENT max_statement_time (seconds),
 * MySQL's MAX_EXECUTION_TIME optimizer hint (which it honours on SELECT only: a write is left as it is). A client that stops waiting leaves
 * its statement running: the server only notices the closed connection once it has rows to send.
 */
export function withServerTimeLimit(sql: string, ms: number, server: DatabaseServer): string {
  const limitMs = Math.max(1, Math.ceil(ms));
  if (server === 'MariaDB') return `SET STATEMENT max_statement_time=${limitMs / 1_000} FOR ${sql}`;
  return sql.replace(/^\s*SELECT\b/i, (select) => `${select} /*+ MAX_EXECUTION_TIME(${limitMs}) */`);
}

/** MariaDB's ER_STATEMENT_TIMEOUT, MySQL's ER_QUERY_TIMEOUT: the server stopped the statement at its time limit. */
export function isServerTimeLimit(error: unknown): boolean {
  const errno = (error as { errno?: unknown } | null)?.errno;
  return errno === 1969 || errno === 3024;
}
