import { databaseServerOf, isServerTimeLimit, withServerTimeLimit } from './statement-time-limit.js';

describe('withServerTimeLimit', () => {
  it('has MariaDB stop a statement after the time left, in seconds, never 0 (which would mean no limit)', () => {
    expect(withServerTimeLimit('SELECT 1', 1234.5, 'MariaDB')).toBe('SET STATEMENT max_statement_time=1.235 FOR SELECT 1');
    expect(withServerTimeLimit('SELECT 1', 0, 'MariaDB')).toBe('SET STATEMENT max_statement_time=0.001 FOR SELECT 1');
  });

  it('gives a MySQL SELECT the MAX_EXECUTION_TIME hint in ms, right after SELECT', () => {
    expect(withServerTimeLimit(' select id FROM tickets', 250, 'MySQL')).toBe(' select /*+ MAX_EXECUTION_TIME(250) */ id FROM tickets');
  });
});

describe('databaseServerOf and isServerTimeLimit', () => {
  it('tells the servers apart by their version string, and knows their time-limit errors', () => {
    expect([databaseServerOf('10.11.6-MariaDB-0+deb12u1'), databaseServerOf('8.4.3')]).toEqual(['MariaDB', 'MySQL']);
    expect([1969, 3024, 1317].map((errno) => isServerTimeLimit({ errno }))).toEqual([true, true, false]);
  });
});
