import { QueryFailedError, type DataSource } from 'typeorm';
import { inTransaction, isCommitOutcomeUnknown, type Transaction } from './transaction.js';

describe('inTransaction', () => {
  const deadlock = () =>
    new QueryFailedError('INSERT', [], Object.assign(new Error('Deadlock found when trying to get lock'), { errno: 1213 }));

  /** A database whose connections record what they are sent; `failures` fail the runs' first statements in turn. */
  function database(failures: Error[] = [], version = '10.11.6-MariaDB', failCommit?: Error) {
    const sent: string[][] = [];
    let released = 0;
    const source = {
      query: async () => [{ version }],
      createQueryRunner: () => {
        const run: string[] = [];
        sent.push(run);
        return {
          query: async (sql: string) => {
            run.push(sql);
            if (run.length === 1 && failures.length > 0) throw failures.shift();
            if (failCommit && /COMMIT$/.test(sql)) throw failCommit;
            return sql.startsWith('START TRANSACTION') ? [{}, { insertId: 7 }] : {};
          },
          release: async () => void released++,
        };
      },
    } as unknown as DataSource;
    return { source, sent, released: () => released };
  }

  const createWork = async (transaction: Transaction) => {
    const { insertId } = (await transaction.query('INSERT INTO tickets (title) VALUES (?)', ['t'])) as { insertId: number };
    await transaction.later.query('INSERT INTO ticket_history (ticket_id) VALUES (?)', [insertId]);
    return insertId;
  };

  it('on MariaDB sends START TRANSACTION with the first statement, then the later statements with COMMIT', async () => {
    const db = database();
    expect(await inTransaction(db.source, createWork)).toBe(7);
    expect(db.sent).toEqual([
      ['START TRANSACTION;\nINSERT INTO tickets (title) VALUES (?)', 'INSERT INTO ticket_history (ticket_id) VALUES (?);\nCOMMIT'],
    ]);
    expect(db.released()).toBe(1);
  });

  it('on MySQL, which bounds no write by the deadline, sends COMMIT alone after the later statements', async () => {
    const db = database([], '8.4.0');
    expect(await inTransaction(db.source, createWork)).toBe(7);
    expect(db.sent).toEqual([
      ['START TRANSACTION;\nINSERT INTO tickets (title) VALUES (?)', 'INSERT INTO ticket_history (ticket_id) VALUES (?)', 'COMMIT'],
    ]);
  });

  it('tells a round trip with COMMIT the server refused (nothing committed) from one killed or lost on the way (unknown)', async () => {
    const refused = new QueryFailedError('INSERT', [], Object.assign(new Error('Data too long'), { errno: 1406 }));
    const refusing = database([], '10.11.6-MariaDB', refused);
    const error = await inTransaction(refusing.source, createWork).catch((failure: unknown) => failure);
    expect(error).toBe(refused);
    expect(isCommitOutcomeUnknown(error)).toBe(false);
    expect(refusing.sent[0].at(-1)).toBe('ROLLBACK');
    // Answered by the server, but possibly by COMMIT after it took effect: a connection killed meanwhile.
    const killed = new QueryFailedError('COMMIT', [], Object.assign(new Error('Connection was killed'), { errno: 1927 }));
    const killing = database([], '10.11.6-MariaDB', killed);
    expect(isCommitOutcomeUnknown(await inTransaction(killing.source, createWork).catch((failure: unknown) => failure))).toBe(true);
    const lost = new QueryFailedError(
      'COMMIT',
      [],
      Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true }),
    );
    const losing = database([], '10.11.6-MariaDB', lost);
    expect(isCommitOutcomeUnknown(await inTransaction(losing.source, createWork).catch((failure: unknown) => failure))).toBe(true);
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

  describe('after-commit hooks', () => {
    /** Work that registers a hook (on the transaction, then on its later statements) recording when it ran. */
    const hooked = (ran: string[], db: { sent: string[][] }, fail?: Error) => async (transaction: Transaction) => {
      transaction.afterCommit(() => void ran.push(`first, after ${db.sent.flat().at(-1)}`));
      await transaction.query('INSERT INTO tickets (title) VALUES (?)', ['t']);
      transaction.later.afterCommit(async () => {
        if (fail) throw fail;
        ran.push('second');
      });
      await transaction.later.query('INSERT INTO ticket_history (ticket_id) VALUES (?)', [7]);
    };

    it('runs them in order once COMMIT succeeded, before inTransaction answers', async () => {
      const db = database();
      const ran: string[] = [];
      await inTransaction(db.source, hooked(ran, db));
      expect(ran).toEqual(['first, after INSERT INTO ticket_history (ticket_id) VALUES (?);\nCOMMIT', 'second']);
    });

    it('never runs them after a rollback, nor for an attempt a deadlock rolled back', async () => {
      const refused = new QueryFailedError('INSERT', [], Object.assign(new Error('Data too long'), { errno: 1406 }));
      const rolledBack = database([], '10.11.6-MariaDB', refused);
      const ran: string[] = [];
      await expect(inTransaction(rolledBack.source, hooked(ran, rolledBack))).rejects.toBe(refused);
      expect(ran).toEqual([]);
      // Two attempts rolled back by deadlocks registered hooks too: only the committed one's run.
      const retried = database([deadlock(), deadlock()]);
      await inTransaction(retried.source, hooked(ran, retried));
      expect(ran).toEqual(['first, after INSERT INTO ticket_history (ticket_id) VALUES (?);\nCOMMIT', 'second']);
    });

    it('runs a function registered twice once', async () => {
      const db = database();
      let runs = 0;
      const wake = () => void runs++;
      await inTransaction(db.source, async (transaction) => {
        transaction.afterCommit(wake);
        transaction.later.afterCommit(wake);
        transaction.afterCommit(() => void runs++);
      });
      expect(runs).toBe(2);
    });

    it('does not fail a committed transaction when a hook fails: the others still run', async () => {
      const db = database();
      const ran: string[] = [];
      const work = async (transaction: Transaction) => {
        await hooked(ran, db, new Error('disk gone'))(transaction);
        transaction.afterCommit(() => void ran.push('third'));
        return 'committed';
      };
      expect(await inTransaction(db.source, work)).toBe('committed');
      expect(ran).toEqual(['first, after INSERT INTO ticket_history (ticket_id) VALUES (?);\nCOMMIT', 'third']);
    });
  });
});
