import { type Connection, type ConnectionOptions, createConnection } from 'mysql2/promise';

/** A connection to the test run's MariaDB, to the run's database unless `options` names another (`database: undefined`: none). */
export function connectToDatabase(options: ConnectionOptions = {}): Promise<Connection> {
  return createConnection({
    host: process.env.DB_HOST ?? '127.0.0.1',
    port: Number(process.env.DB_PORT ?? 3306),
    user: process.env.DB_USERNAME ?? 'root',
    password: process.env.DB_PASSWORD ?? '',
    database: process.env.DB_DATABASE,
    ...options,
  });
}

/** Drops a database a suite made for itself. */
export async function dropDatabase(name: string): Promise<void> {
  const db = await connectToDatabase({ database: undefined });
  try {
    await db.query(`DROP DATABASE IF EXISTS \`${name}\``);
  } finally {
    await db.end();
  }
}

/**
 * A database of the suite's own, for a suite that must not see what other suites leave in the worker's database
 * (or must not leave its settings' effects there). Named after the worker's database, so the run's teardown finds
 * it too; dropped after the suite. Call it at the top of the file, outside any describe: its drop then runs after
 * the describe blocks' own afterAll hooks have closed the services using it.
 */
export function useOwnDatabase(suffix: string): string {
  const name = `${process.env.DB_DATABASE}_${suffix}`;
  afterAll(() => dropDatabase(name));
  return name;
}
