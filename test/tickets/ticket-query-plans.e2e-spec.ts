import type { INestApplication } from '@nestjs/common';
import { type Connection, createConnection } from 'mysql2/promise';
import { parseTicketQuery } from '../../src/tickets/query/ticket-query.js';
import { ticketCountSql, ticketListSql } from '../../src/tickets/query/ticket-query-sql.js';
import { insertTicketWords } from '../../src/tickets/query/ticket-words.js';
import { createTestApp } from '../support/test-app.js';
import { useOwnDatabase } from '../support/database.js';

const ROWS = 20_000;
const LIMIT = 50;

interface PlanRow {
  table?: string;
  type?: string;
  key: string | null;
  r_loops?: string | number | null;
  Extra: string | null;
  r_rows?: string | number | null;
}

const database = useOwnDatabase('plans');

/**
 * The common queues are read through their index, without a sort, on the real server: EXPLAIN for the plan,
 * ANALYZE (which runs the statement) for how many rows it actually read, on the first page and on a page
 * deep in the queue. The statements are the ones the service runs, built by the same query module, on a
 * database of their own (migrated by the app) with enough rows for the optimizer to care.
 */
describe('Query plans of the common queues (EXPLAIN on MariaDB)', () => {
  let app: INestApplication;
  let db: Connection;

  beforeAll(async () => {
    app = await createTestApp({ env: { DB_DATABASE: database } });
    db = await createConnection({
      host: process.env.DB_HOST ?? '127.0.0.1',
      port: Number(process.env.DB_PORT ?? 3306),
      user: process.env.DB_USERNAME ?? 'root',
      password: process.env.DB_PASSWORD ?? '',
      database,
      timezone: 'Z',
    });
    // seq_1_to_N is MariaDB's SEQUENCE engine: the rows are written by one statement.
    await db.query(`
      INSERT INTO tickets (title, description, status, priority, requester_email, assigned_to, created_at, updated_at)
      SELECT CONCAT('Ticket ', seq), CONCAT(ELT(1 + seq % 4, 'Printer', 'Scanner', 'Laptop', 'Monitor'), ' on floor ', seq % 12, IF(seq % 3 = 0, ' jams', ' is slow')),
             ELT(1 + seq % 5, 'OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED'),
             ELT(1 + seq % 4, 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'),
             CONCAT('user', seq % 50, '@example.com'), CONCAT('desk-', seq % 20),
             TIMESTAMP'2026-01-01 00:00:00' + INTERVAL seq SECOND,
             TIMESTAMP'2026-01-01 00:00:00' + INTERVAL (seq * 7919 % ${ROWS}) SECOND
      FROM seq_1_to_${ROWS}`);
    // The search index of these tickets, by the service's own tokenizer ("printer" in one in four, "jams" in one in three).
    const tickets = await db.query<any[]>('SELECT id, title, description FROM tickets ORDER BY id');
    for (let i = 0; i < tickets[0].length; i += 1000) await insertTicketWords(db, tickets[0].slice(i, i + 1000));
    await db.query('ANALYZE TABLE tickets, ticket_words');
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await db?.end();
  });

  /** The plan of the page `depth` tickets into the queue (0: the first page). */
  async function plan(raw: Record<string, string>, depth: number): Promise<{ explain: PlanRow; analyze: PlanRow }> {
    const first = parseTicketQuery({ ...raw, limit: String(LIMIT) }, 'v2');
    let query = first;
    if (depth > 0) {
      const [[row]] = await db.query<any[]>(
        `${ticketListSql({ ...first, page: undefined }).sql} LIMIT 1 OFFSET ${depth - 1}`,
        ticketListSql(first).params,
      );
      const after = first.sort.map(({ field }) => {
        const value = {
          id: Number(row.id),
          createdAt: row.created_at,
          updatedAt: row.updated_at,
          priority: row.priority,
          status: row.status,
          slaDueAt: row.sla_due_at,
        }[field];
        return value instanceof Date ? value.getTime() : value;
      });
      query = { ...first, page: { ...first.page!, after } };
    }
    const { sql, params } = ticketListSql(query);
    const [[explain]] = await db.query<any[]>(`EXPLAIN ${sql}`, params);
    const [[analyze]] = await db.query<any[]>(`ANALYZE ${sql}`, params);
    return { explain, analyze };
  }

  it.each([
    ['status + -updatedAt', 'idx_tickets_status_updated', { status: 'OPEN', sort: '-updatedAt' }],
    ['assignedTo + status', 'idx_tickets_assignee_status', { assignedTo: 'desk-5', status: 'OPEN' }],
    ['requesterEmail + -createdAt', 'idx_tickets_requester_created', { requesterEmail: 'USER7@example.com', sort: '-createdAt' }],
    ['priority + status', 'idx_tickets_priority_status', { priority: 'HIGH', status: 'OPEN' }],
  ])('%s is read through %s without a filesort, and a deep page reads no more rows than the first', async (_name, index, raw) => {
    for (const depth of [0, 150]) {
      const { explain, analyze } = await plan(raw, depth);
      expect({ depth, key: explain.key, filesort: /filesort/i.test(explain.Extra ?? '') }).toEqual({ depth, key: index, filesort: false });
      expect(Number(analyze.r_rows)).toBeLessThanOrEqual(LIMIT + 1);
    }
  });

  it('counts a queue from the index alone', async () => {
    const { sql, params } = ticketCountSql(parseTicketQuery({ status: 'OPEN' }, 'v2'));
    const [[explain]] = await db.query<any[]>(`EXPLAIN ${sql}`, params);
    expect(explain.key).toMatch(/^idx_tickets_status/);
    expect(explain.Extra).toMatch(/Using index/);
  });

  /** Every table of the plan, in join order (EXPLAIN and ANALYZE of the statement), and whether it sorts. */
  async function searchPlan(raw: Record<string, string>, after?: number): Promise<{ tables: PlanRow[]; filesort: boolean }> {
    const parsed = parseTicketQuery({ ...raw, limit: String(LIMIT) }, 'v2');
    const { sql, params } = ticketListSql(after === undefined ? parsed : { ...parsed, page: { ...parsed.page!, after: [after] } });
    const [explain] = await db.query<any[]>(`EXPLAIN ${sql}`, params);
    const [analyze] = await db.query<any[]>(`ANALYZE ${sql}`, params);
    return { tables: analyze, filesort: explain.some((row: PlanRow) => /filesort|temporary/i.test(row.Extra ?? '')) };
  }

  it.each([
    ['by id', {}, 4000],
    ['by -id', { sort: '-id' }, 16000],
  ])(
    "searches for common words %s from one word's tickets in id order, without a sort, and stops after the page",
    async (_name, sort, after) => {
      for (const position of [undefined, after]) {
        const { tables, filesort } = await searchPlan({ q: 'printer jams', ...sort }, position);
        // The first table is one word's range of the primary key (word, ticket_id); the other word and the ticket by key.
        expect({ position, filesort, first: tables[0].table, key: tables[0].key }).toEqual({
          position,
          filesort: false,
          first: expect.stringMatching(/^w[01]$/),
          key: 'PRIMARY',
        });
        expect(tables.slice(1).map((row) => row.type)).toEqual(['eq_ref', 'eq_ref']);
        // 1,667 tickets match; a page of 50 reads about three (or four) times the page from the first word, not its 5,000 or 6,667 tickets.
        expect(Number(tables[0].r_rows)).toBeLessThanOrEqual(4 * (LIMIT + 1) + 10);
        expect(Number(tables.at(-1)!.r_rows) * Number(tables.at(-1)!.r_loops ?? 1)).toBeLessThanOrEqual(LIMIT + 1);
      }
    },
  );

  it('checks a prefix word on the tickets of the page only, when a whole word leads', async () => {
    const { tables, filesort } = await searchPlan({ q: 'jams print*' });
    expect({ filesort, first: tables[0].table, key: tables[0].key }).toEqual({ filesort: false, first: 'w0', key: 'PRIMARY' });
    expect(Number(tables[0].r_rows)).toBeLessThanOrEqual(4 * (LIMIT + 1) + 10);
  });
});
