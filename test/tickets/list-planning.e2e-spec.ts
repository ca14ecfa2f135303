import type { Connection } from 'mysql2/promise';
import { connectToDatabase, useOwnDatabase } from '../support/database.js';
import { useTestApp } from '../support/test-app.js';

type Json = Record<string, any>;

/** More tickets than a walk examines (vocabulary-sql.ts WALK_ROWS_MAX, 40,000): the `late` ones lie beyond it in id order. */
const SEEDED = 60_000;
const LATE_FROM = 54_000;

const database = useOwnDatabase('list_planning');

/**
 * Lists whose tag filters are each too large to start from (vocabulary-sql.ts): a walk stopped at its bound of rows
 * examined is read again from the smallest tag's tickets, and a sort no index gives is read from it at once (a walk
 * would have to sort, which MariaDB stops with an error). Seeded by SQL on a database of its own.
 */
describe('Lists with large tag filters', () => {
  const testApp = useTestApp({ env: { DB_DATABASE: database } });
  let db: Connection;
  const model: number[] = [];

  const page = async (query: string): Promise<Json> => (await testApp.http.get(`/api/v2/tickets?${query}`).expect(200)).body;

  beforeAll(async () => {
    db = await connectToDatabase({ database });
    await db.query(`
      INSERT INTO tickets (title, description, status, priority, requester_email, created_at, updated_at)
      SELECT CONCAT('Seeded ', seq), 'Seeded by SQL', 'OPEN', 'LOW', 'user@example.com',
             TIMESTAMP'2026-01-01 00:00:00' + INTERVAL seq SECOND, NOW(3)
      FROM seq_1_to_${SEEDED}`);
    const [[{ first }]] = await db.query<any[]>('SELECT MIN(id) AS first FROM tickets');
    await db.query(`INSERT INTO ticket_tags (tag, ticket_id) SELECT 'even', id FROM tickets WHERE (id - ${first}) % 2 = 0`);
    await db.query(`INSERT INTO ticket_tags (tag, ticket_id) SELECT 'odd', id FROM tickets WHERE (id - ${first}) % 2 = 1`);
    await db.query(`INSERT INTO ticket_tags (tag, ticket_id) SELECT 'late', id FROM tickets WHERE id - ${first} >= ${LATE_FROM}`);
    const [rows] = await db.query<any[]>(
      `SELECT id FROM tickets WHERE (id - ${first}) % 2 = 0 AND id - ${first} >= ${LATE_FROM} ORDER BY id`,
    );
    model.push(...rows.map((row: Json) => Number(row.id)));
    await db.query('ANALYZE TABLE tickets, ticket_tags');
  }, 60_000);
  afterAll(() => db?.end());

  it('reads a walk its bound stopped before any match again from the smallest filter, and pages on to the end', async () => {
    const first = await page('tags=even&tags=late&sort=id&limit=50&total=false');
    expect(first.items.map((ticket: Json) => ticket.id)).toEqual(model.slice(0, 50));
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const next: Json = await page(`tags=even&tags=late&sort=id&limit=500&total=false${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...next.items.map((ticket: Json) => ticket.id));
      cursor = next.nextCursor;
    } while (cursor);
    expect(seen).toEqual(model);
  });

  it('reads a sort no index gives from the smallest filter, and two filters never together as none', async () => {
    const newest = await page('tags=even&tags=late&sort=-createdAt&limit=50');
    expect(newest.items.map((ticket: Json) => ticket.id)).toEqual([...model].reverse().slice(0, 50));
    expect(newest.total).toBe(model.length);
    expect((await page('tags=even&tags=odd&sort=id&limit=50')).items).toEqual([]);
  });

  it('checks a status filter on the tickets of the set it starts from, in both ways a list is read', async () => {
    // Every third ticket of the model moves on; the status is checked in the status index, before the rows are read.
    const moved = model.filter((_id, i) => i % 3 === 0);
    await db.query("UPDATE tickets SET status = 'IN_PROGRESS' WHERE id IN (?)", [moved]);
    try {
      const open = model.filter((_id, i) => i % 3 !== 0);
      const newest = await page('status=OPEN&tags=late&tags=even&sort=-createdAt&limit=50');
      expect(newest.items.map((ticket: Json) => ticket.id)).toEqual([...open].reverse().slice(0, 50));
      expect(newest.total).toBe(open.length);
      const walked = await page('status=OPEN&status=IN_PROGRESS&tags=even&tags=late&sort=id&limit=50&total=false');
      expect(walked.items.map((ticket: Json) => ticket.id)).toEqual(model.slice(0, 50));
      const moving = await page('status=IN_PROGRESS&tags=even&tags=late&sort=id&limit=500&total=false');
      expect(moving.items.map((ticket: Json) => ticket.id)).toEqual(moved.slice(0, 500));
    } finally {
      await db.query("UPDATE tickets SET status = 'OPEN' WHERE id IN (?)", [moved]);
    }
  });

  it('walks an order with a tag and field values each too large to start from, joined to each ticket by key', async () => {
    // Every ticket has a kind (a, b, c by turns) and a cost (its place modulo 1,000): two sets of 20,000 and 30,000.
    for (const field of [
      { key: 'kind', type: 'enum', options: ['a', 'b', 'c'] },
      { key: 'cost', type: 'number' },
    ])
      await testApp.http
        .post('/api/v2/fields')
        .send({ label: field.key, ...field })
        .expect(201);
    const [definitions] = await db.query<any[]>("SELECT id, field_key FROM field_definitions WHERE field_key IN ('kind', 'cost')");
    const fieldId = (key: string) => definitions.find((row: Json) => row.field_key === key).id;
    const [[{ first }]] = await db.query<any[]>('SELECT MIN(id) AS first FROM tickets');
    await db.query(
      `INSERT INTO ticket_field_values (ticket_id, field_id, item, text_value)
       SELECT id, ?, 0, ELT((id - ${first}) % 3 + 1, 'a', 'b', 'c') FROM tickets`,
      [fieldId('kind')],
    );
    await db.query(
      `INSERT INTO ticket_field_values (ticket_id, field_id, item, number_value) SELECT id, ?, 0, (id - ${first}) % 1000 FROM tickets`,
      [fieldId('cost')],
    );
    await db.query('ANALYZE TABLE ticket_field_values');
    const place = (id: number) => id - Number(first);
    const ids = Array.from({ length: SEEDED }, (_none, i) => Number(first) + i);
    const walkAll = async (query: string): Promise<number[]> => {
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const next: Json = await page(`${query}&limit=500&total=false${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...next.items.map((ticket: Json) => ticket.id));
        cursor = next.nextCursor;
      } while (cursor);
      return seen;
    };

    const evenKindA = ids.filter((id) => place(id) % 6 === 0);
    expect(await walkAll('tags=even&field.kind=a&sort=id')).toEqual(evenKindA);
    const byCost = (a: number, b: number) => (place(b) % 1000) - (place(a) % 1000) || b - a;
    const priciest = (await page('tags=even&field.kind=a&sort=-field.cost&limit=50')).items.map((ticket: Json) => ticket.id);
    expect(priciest).toEqual([...evenKindA].sort(byCost).slice(0, 50));
    const lateMiddle = ids.filter(
      (id) => place(id) >= LATE_FROM && place(id) % 3 === 1 && place(id) % 1000 >= 100 && place(id) % 1000 < 300,
    );
    expect(await walkAll('tags=late&field.kind=b&field.cost.gte=100&field.cost.lt=300&sort=field.cost')).toEqual(
      [...lateMiddle].sort((a, b) => byCost(b, a)),
    );
  });
});
