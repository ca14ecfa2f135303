import { QueryFailedError, type DataSource } from 'typeorm';
import { inTransaction } from './transaction.js';

describe('inTransaction', () => {
  const deadlock = () =>
    new QueryFailedError('INSERT', [], Object.assign(new Error('Deadlock found when trying to get lock'), { errno: 1213 }));

  /** A database whose connections record what they are sent; `failures` fail the runs' first statements in turn. */
  function database(failures: Error[] = []) {
    const sent: string[][] = [];
    let released = 0;
    const source = {
      query: async () => [{ version: '10.11.6-MariaDB' }],
      createQueryRunner: () => {
        const run: string[] = [];
        sent.push(run);
        return {
          query: async (sql: string) => {
            run.push(sql);
            if (run.length === 1 && failures.length > 0) throw failures.shift();
            return sql.startsWith('START TRANSACTION') ? [{}, { insertId: 7 }] : {};
          },
          release: async () => void released++,
        };
      },
    } as unknown as DataSource;
    return { source, sent, released: () => released };
  }

  it('sends START TRANSACTION with the first statement, the later statements together, then COMMIT alone', async () => {
    const db = database();
    const id = await inTransaction(db.source, async (transaction) => {
      const { insertId } = (await transaction.query('INSERT INTO tickets (title) VALUES (?)', ['t'])) as { insertId: number };
      await transaction.later.query('INSERT INTO ticket_history (ticket_id) VALUES (?)', [insertId]);
      return insertId;
    });
    expect(id).toBe(7);
    expect(db.sent).toEqual([
      ['START TRANSACTION;\nINSERT INTO tickets (title) VALUES (?)', 'INSERT INTO ticket_history (ticket_id) VALUES (?)', 'COMMIT'],
    ]);
    expect(db.released()).toBe(1);
  });

  it('rolls back a failed run, and runs the work again when InnoDB rolled it back to break a deadlock', async () => {
    const db = database([deadlock(), deadlock()]);
    expect(await inTransaction(db.source, async (transaction) => transaction.query('SELECT 1'))).toEqual({ insertId: 7 });
    expect(db.sent.map((run) => run.at(-1))).toEqual(['ROLLBACK', 'ROLLBACK', 'COMMIT']);
    expect(db.released()).toBe(3);
  });

  it('gives up after five attempts, and never repeats work that failed otherwise', async () => {
    const exhausted = database([deadlock(), deadlock(), deadlock(), deadlock(), deadlock()]);
    await expect(inTransaction(exhausted.source, async (transaction) => transaction.query('SELECT 1'))).rejects.toBeInstanceOf(
      QueryFailedError,
    );
    expect(exhausted.sent).toHaveLength(5);
    const other = new QueryFailedError('INSERT', [], Object.assign(new Error('Duplicate entry'), { errno: 1062 }));
    const failed = database([other]);
    await expect(inTransaction(failed.source, async (transaction) => transaction.query('SELECT 1'))).rejects.toBe(other);
    expect(failed.sent).toHaveLength(1);
  });
});
