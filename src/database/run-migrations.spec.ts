import { migrationsMessage } from './run-migrations.js';

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
