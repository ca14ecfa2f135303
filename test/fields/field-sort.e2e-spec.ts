import type { Connection } from 'mysql2/promise';
import { connectToDatabase, useOwnDatabase } from '../support/database.js';
import { expectProblem } from '../support/problem-json.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

type Json = Record<string, any>;

/** More tickets than a list starts from (vocabulary-sql.ts SET_START_MAX): `tags=bulk` is walked in the sort's order. */
const SEEDED = 5200;
const FIELDS: Array<{ key: string; type: string; options?: string[] }> = [
  { key: 'site', type: 'enum', options: ['ber', 'muc', 'ham', 'fra'] },
  { key: 'cost', type: 'number' },
  { key: 'due', type: 'date' },
  { key: 'asset', type: 'text' },
  { key: 'vip', type: 'boolean' },
  { key: 'channels', type: 'multi_enum', options: ['phone', 'mail', 'chat'] },
];

/** The value a ticket sorts by (docs/api.md#custom-fields), null without one. */
function sortValue(type: string, value: unknown): string | number | null {
  if (value === undefined || value === null) return null;
  if (type === 'multi_enum') return (value as string[])[0];
  if (type === 'text') return [...(value as string)].slice(0, 255).join('');
  if (type === 'number') return value as number;
  return String(value);
}

/** The model's order: by value (numbers as numbers, everything else byte for byte), then id, each in the direction; no value last. */
function compare(type: string, key: string, descending: boolean) {
  return (a: Json, b: Json): number => {
    const [x, y] = [sortValue(type, a.fields[key]), sortValue(type, b.fields[key])];
    if ((x === null) !== (y === null)) return x === null ? 1 : -1;
    const sign = descending ? -1 : 1;
    if (x !== null && y !== null && x !== y) {
      const order = typeof x === 'number' ? x - (y as number) : Buffer.compare(Buffer.from(String(x)), Buffer.from(String(y)));
      if (order !== 0) return sign * order;
    }
    return sign * (a.id - b.id);
  };
}

const database = useOwnDatabase('field_sort');

/**
 * `sort=field.<key>`: every type, both directions, walked to the end with cursors, alone, with a tag filter too large to
 * start from (the field's index read in order, each ticket's tags looked up), with one small enough to start from, and
 * with a status filter; tickets without a value last. On a database of its own, seeded by SQL beyond SET_START_MAX.
 */
describe('Custom fields: sorting', () => {
  const testApp = useTestApp({ env: { DB_DATABASE: database } });
  let db: Connection;
  let few: string;

  const walk = async (query: string, limit = 1000): Promise<Json[]> => {
    const seen: Json[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = (
        await testApp.http.get(`/api/v2/tickets?${query}&limit=${limit}&total=false${cursor ? `&cursor=${cursor}` : ''}`).expect(200)
      ).body;
      seen.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return seen;
  };

  beforeAll(async () => {
    for (const field of FIELDS)
      await testApp.http
        .post('/api/v2/fields')
        .send({ label: field.key, ...field })
        .expect(201);
    db = await connectToDatabase({ database });
    await db.query(`
      INSERT INTO tickets (title, description, status, priority, requester_email, created_at, updated_at)
      SELECT CONCAT('Seeded ', seq), 'Seeded by SQL', ELT(1 + seq % 3, 'OPEN', 'IN_PROGRESS', 'CLOSED'), 'LOW', 'user@example.com',
             NOW(3), NOW(3)
      FROM seq_1_to_${SEEDED}`);
    const [[{ first }]] = await db.query<any[]>('SELECT MIN(id) AS first FROM tickets');
    const [definitions] = await db.query<any[]>('SELECT id, field_key FROM field_definitions');
    const id = (key: string) => definitions.find((definition: Json) => definition.field_key === key).id;
    const seq = `(t.id - ${first})`;
    await db.query(`INSERT INTO ticket_tags (tag, ticket_id) SELECT 'bulk', id FROM tickets`);
    await db.query(`INSERT INTO ticket_tags (tag, ticket_id) SELECT 'few', id FROM tickets t WHERE ${seq} % 50 = 0`);
    const values = (key: string, columns: string, where: string, item = 0) =>
      db.query(
        `INSERT INTO ticket_field_values (ticket_id, field_id, item, text_value, number_value, date_value)
         SELECT t.id, ${id(key)}, ${item}, ${columns} FROM tickets t WHERE ${where}`,
      );
    await values('site', `ELT(1 + ${seq} % 4, 'ber', 'muc', 'ham', 'fra'), NULL, NULL`, `${seq} % 7 <> 0`);
    await values('cost', `NULL, ${seq} * 37 % 1000 + IF(${seq} % 3 = 0, 0.25, 0) - 200, NULL`, `${seq} % 5 <> 0`);
    await values('due', `NULL, NULL, DATE'2026-01-01' + INTERVAL ${seq} % 400 DAY`, `${seq} % 6 <> 0`);
    // Some texts longer than 255 characters, alike in their first 255: those sort by id among themselves.
    await values(
      'asset',
      `IF(${seq} % 97 = 0, CONCAT(REPEAT('z', 255), ${seq}), CONCAT('PC-', LPAD(${seq} % 300, 4, '0'))), NULL, NULL`,
      `${seq} % 4 <> 0`,
    );
    await values('vip', `IF(${seq} % 2 = 0, 'true', 'false'), NULL, NULL`, `${seq} % 3 <> 0`);
    // A multi_enum's items are stored in the order of its options (phone, mail, chat).
    await values('channels', `ELT(1 + ${seq} % 3, 'phone', 'mail', 'chat'), NULL, NULL`, `${seq} % 4 <> 3`);
    await values('channels', `'chat', NULL, NULL`, `${seq} % 4 = 0 AND ${seq} % 3 <> 2`, 1);
    await db.query('ANALYZE TABLE tickets, ticket_tags, ticket_field_values');
    few = 'few';
  }, 60_000);
  afterAll(() => db?.end());

  it.each(FIELDS.map((field) => [field.key, field.type]))(
    'sorts by a %s (%s) field both ways, no value last, walked to the end',
    async (key, type) => {
      for (const filter of ['tags=bulk', `tags=bulk&tags=${few}`, 'status=OPEN,CLOSED', '']) {
        const matching = await walk(`${filter}&sort=id`, 1000);
        for (const descending of [false, true]) {
          const sorted = await walk(`${filter}&sort=${descending ? '-' : ''}field.${key}`, 700);
          expect([filter, descending, sorted.length]).toEqual([filter, descending, matching.length]);
          const model = [...matching].sort(compare(type, key, descending));
          expect([filter, descending, sorted.map((ticket) => ticket.id)]).toEqual([filter, descending, model.map((ticket) => ticket.id)]);
        }
      }
    },
  );

  it('keeps each unchanged ticket once and in order while tickets are written during the walk', async () => {
    const moving: number[] = [];
    for (let i = 0; i < 20; i++) {
      moving.push(
        (
          await testApp.http
            .post('/api/v2/tickets')
            .send(buildTicketRequest({ tags: ['bulk'], fields: { cost: i * 40 } }))
            .expect(201)
        ).body.id,
      );
    }
    const before = await walk('tags=bulk&sort=id', 1000);
    let writing = true;
    const writer = (async () => {
      for (let round = 0; writing; round++) {
        const id = moving[round % moving.length];
        await testApp.http
          .patch(`/api/v2/tickets/${id}`)
          .set('Content-Type', 'application/merge-patch+json')
          .send({ fields: { cost: round % 2 === 0 ? null : (round * 7919) % 1000 } })
          .expect(200);
        await testApp.http
          .post('/api/v2/tickets')
          .send(buildTicketRequest({ tags: ['bulk'], fields: { cost: round % 900 } }))
          .expect(201);
      }
    })();
    const sorted = await walk('tags=bulk&sort=-field.cost', 300);
    writing = false;
    await writer;
    const known = new Set(before.map((ticket) => ticket.id).filter((id) => !moving.includes(id)));
    const unchanged = sorted.filter((ticket) => known.has(ticket.id));
    expect(new Set(unchanged.map((ticket) => ticket.id)).size).toBe(unchanged.length);
    expect(unchanged.length).toBe(known.size);
    expect(unchanged.map((ticket) => ticket.id)).toEqual([...unchanged].sort(compare('number', 'cost', true)).map((ticket) => ticket.id));
  });

  it('refuses an unknown field, a field sorted beside another key, and a cursor of another sort; v1 sorts by a field too', async () => {
    const unknown = await expectProblem(asHttpResponse(await testApp.http.get('/api/v2/tickets?sort=field.nope')), 400);
    expect(unknown.errors.map((error: Json) => error.field)).toEqual(['sort']);
    await expectProblem(asHttpResponse(await testApp.http.get('/api/v2/tickets?sort=field.cost,-updatedAt')), 400);
    const page = (await testApp.http.get('/api/v2/tickets?sort=field.cost&limit=2').expect(200)).body;
    await expectProblem(asHttpResponse(await testApp.http.get(`/api/v2/tickets?sort=-field.cost&limit=2&cursor=${page.nextCursor}`)), 400);
    // v1 sorts by a field too, its bodies unchanged.
    const v1 = (await testApp.http.get('/api/tickets?tags=few&sort=-field.cost&limit=5').expect(200)).body;
    expect(v1.items ?? v1).toHaveLength(5);
    expect((v1.items ?? v1)[0]).not.toHaveProperty('fields');
  });
});
