import type { DataSource } from 'typeorm';
import { migrationsMessage, runMigrations } from './run-migrations.js';

describe('the start-up line about migrations', () => {
  it('names the migrations that ran, in the order they ran', () => {
    expect(migrationsMessage(['CreateTickets1763900000000', 'CreateOutbox1763900000001'], 2)).toBe(
      'Migrations ran: CreateTickets1763900000000, CreateOutbox1763900000001 (0 of 2 were applied before)',
    );
    expect(migrationsMessage(['CreateOutbox1763900000001'], 2)).toBe(
      'Migrations ran: CreateOutbox1763900000001 (1 of 2 were applied before)',
    );
  });

  it('says that none was pending when the schema is current', () => {
    expect(migrationsMessage([], 2)).toBe('No migrations pending: all 2 are applied');
  });
});

describe('running the migrations', () => {
  it('runs them without the statement bound, and bounds the statements again afterwards, also after a failure', async () => {
    const bounds: unknown[] = [];
    const dataSource = (fail: boolean) => {
      const driver = { options: { enableQueryTimeout: true } };
      return {
        driver,
        options: {},
        migrations: [],
        runMigrations: async () => {
          bounds.push(driver.options.enableQueryTimeout);
          if (fail) throw new Error('migration failed');
          return [];
        },
        destroy: async () => undefined,
      } as unknown as DataSource;
    };
    const logger = { log: () => undefined } as never;
    const ok = dataSource(false);
    await runMigrations(ok, logger);
    const failing = dataSource(true);
    await expect(runMigrations(failing, logger)).rejects.toThrow('migration failed');
    expect(bounds).toEqual([false, false]);
    expect([ok, failing].map((source) => (source.driver.options as { enableQueryTimeout?: boolean }).enableQueryTimeout)).toEqual([
      true,
      true,
    ]);
  });
});
