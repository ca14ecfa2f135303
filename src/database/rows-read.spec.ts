import { known, listedByTicket, readTogether, type RowsRead } from './rows-read.js';

describe('reads sent together', () => {
  const sent: Array<{ sql: string; params?: unknown[] }> = [];
  const answering = (answer: unknown) => ({
    query: (sql: string, params?: unknown[]) => {
      sent.push({ sql, params });
      return Promise.resolve(answer);
    },
  });
  const count = (sql: string, params: unknown[]): RowsRead<number> => ({ sql, params, from: (rows) => (rows as unknown[]).length });
  const insert = (sql: string): RowsRead<number> => ({ sql, params: [], from: (result) => (result as { insertId: number }).insertId });
  beforeEach(() => (sent.length = 0));

  it('sends every statement in one round trip and gives each read its own rows, in order', async () => {
    const results = await readTogether(
      answering([[{}], [], [{}, {}]]),
      count('SELECT a', [1]),
      count('SELECT b', []),
      count('SELECT c', [2, 3]),
    );
    expect(results).toEqual([1, 0, 2]);
    expect(sent).toEqual([{ sql: 'SELECT a;\nSELECT b;\nSELECT c', params: [1, 2, 3] }]);
  });

  it("takes a single statement's rows as its own, and sends nothing for a read that needs no statement", async () => {
    expect(await readTogether(answering([{}, {}]), known('given'), count('SELECT a', [1]), known(7))).toEqual(['given', 2, 7]);
    expect(sent).toEqual([{ sql: 'SELECT a', params: [1] }]);
    expect(await readTogether(answering(undefined), known(1))).toEqual([1]);
    expect(sent).toHaveLength(1);
  });

  it("gives a write its result, alone (mysql2 answers one statement's result bare) or among the others' rows", async () => {
    expect(await readTogether(answering({ insertId: 5 }), known([]), insert('INSERT a'))).toEqual([[], 5]);
    expect(
      await readTogether(
        answering([[{}], { insertId: 6 }, { insertId: 7 }]),
        count('SELECT a', []),
        insert('INSERT a'),
        insert('INSERT b'),
      ),
    ).toEqual([1, 6, 7]);
    expect(sent.map(({ sql }) => sql)).toEqual(['INSERT a', 'SELECT a;\nINSERT a;\nINSERT b']);
  });
});

describe('values listed by ticket', () => {
  it("lists each row's value under its ticket, in the rows' order", () => {
    const rows = [
      { ticket_id: '7', tag: 'a' },
      { ticket_id: 7, tag: 'b' },
      { ticket_id: '9', tag: 'c' },
    ];
    expect(listedByTicket(rows, (row) => row.tag)).toEqual(
      new Map([
        [7, ['a', 'b']],
        [9, ['c']],
      ]),
    );
    expect(listedByTicket([], (row: { ticket_id: number }) => String(row.ticket_id))).toEqual(new Map());
  });
});
