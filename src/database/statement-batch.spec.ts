import { StatementBatch } from './statement-batch.js';

describe('StatementBatch', () => {
  function connection() {
    const sent: Array<[string, unknown[] | undefined]> = [];
    return { sent, query: async (sql: string, params?: unknown[]) => void sent.push([sql, params]) };
  }

  it('sends the statements added, in order and with their parameters, in one round trip', async () => {
    const db = connection();
    const batch = new StatementBatch();
    expect(await batch.query('INSERT INTO a (x) VALUES (?)', [1])).toBeUndefined();
    await batch.query('INSERT INTO b (y, z) VALUES (?, ?)', ['two', 3]);
    expect(db.sent).toEqual([]);
    await batch.run(db);
    expect(db.sent).toEqual([['INSERT INTO a (x) VALUES (?);\nINSERT INTO b (y, z) VALUES (?, ?)', [1, 'two', 3]]]);
  });

  it('sends nothing when nothing was added', async () => {
    const db = connection();
    await new StatementBatch().run(db);
    expect(db.sent).toEqual([]);
  });
});
