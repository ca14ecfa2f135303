import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';

/** The start-up line about the schema: the migrations that ran, or that none was pending. */
export function migrationsMessage(ran: string[], known: number): string {
  return ran.length > 0
    ? `Migrations ran: ${ran.join(', ')} (${known - ran.length} of ${known} were applied before)`
    : `No migrations pending: all ${known} are applied`;
}

/**
 * Applies the pending migrations on a freshly connected data source and says in one line which ran. TypeORM's own
 * migrationsRun would do the same silently. A data source whose migrations failed is closed before the error goes on,
 * so that a retry does not leave its connections behind.
 */
export async function runMigrations(dataSource: DataSource, logger = new Logger('Database')): Promise<DataSource> {
  // The migrations' statements are not bounded by DB_QUERY_TIMEOUT_MS (TypeORM reads the bound from its driver's
  // options at each statement): DDL commits by itself, so one the client stops waiting for goes on in the server and
  // leaves the schema ahead of the migrations table, and every later start fails on it (an index added to an empty
  // table took over 5 s on a loaded server). Connecting stays bounded.
  const driverOptions = dataSource.driver.options as { enableQueryTimeout?: boolean };
  const bounded = driverOptions.enableQueryTimeout;
  driverOptions.enableQueryTimeout = false;
  try {
    const ran = await dataSource.runMigrations({ transaction: dataSource.options.migrationsTransactionMode ?? 'all' });
    logger.log(
      migrationsMessage(
        ran.map((migration) => migration.name),
        dataSource.migrations.length,
      ),
    );
    return dataSource;
  } catch (error) {
    await dataSource.destroy().catch(() => undefined);
    throw error;
  } finally {
    driverOptions.enableQueryTimeout = bounded;
  }
}
