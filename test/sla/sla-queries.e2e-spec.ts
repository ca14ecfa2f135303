import type { INestApplication } from '@nestjs/common';
import { type Connection, createConnection } from 'mysql2/promise';
import request from 'supertest';
import { parseTicketQuery } from '../../src/tickets/query/ticket-query.js';
import { ticketListSql } from '../../src/tickets/query/ticket-query-sql.js';
import { slaPolicyEnv } from '../support/sla-policy.js';
import { createTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { useOwnDatabase } from '../support/database.js';

type Json = Record<string, any>;

const ROWS = 20_000;
const LIMIT = 50;
const H = 3_600_000;

const database = useOwnDatabase('sla_queries');

/**
 * The SLA list parameters (slaBreached, slaDueBefore, sort=slaDueAt) in v2 and as v1's optional ones, and their
 * plans: on a database of their own with enough rows for the optimizer to care, EXPLAIN shows the SLA indexes read
 * in order (no filesort) and ANALYZE that a deep page reads no more rows than the first.
 */
describe('SLA list queries', () => {
  // CRITICAL's resolution breaches after 1 s; everything else in hours.
  const env = { ...slaPolicyEnv({ CRITICAL: { firstResponse: 'PT10H', resolution: 'PT1S' } }), DB_DATABASE: database };
  let app: INestApplication;
  let http: ReturnType<typeof request>;
  let db: Connection;

  beforeAll(async () => {
    app = await createTestApp({ env });
    http = request(app.getHttpServer());
    db = await createConnection({
      host: process.env.DB_HOST ?? '127.0.0.1',
      port: Number(process.env.DB_PORT ?? 3306),
      user: process.env.DB_USERNAME ?? 'root',
      password: process.env.DB_PASSWORD ?? '',
      database,
      timezone: 'Z',
    });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await db?.end();
  });

  describe('answers', () => {
    const created: Json[] = [];
    const ids = () => created.map((ticket) => ticket.id);
    const only = (items: Json[]) => items.map((item) => item.id).filter((id) => ids().includes(id));

    beforeAll(async () => {
      for (const overrides of [
        { priority: 'LOW' },
        { priority: 'HIGH' },
        { priority: 'MEDIUM', status: 'RESOLVED' },
        { priority: 'CRITICAL', status: 'IN_PROGRESS' },
      ]) {
        created.push((await http.post('/api/v2/tickets').send(buildTicketRequest(overrides)).expect(201)).body);
      }
      // Wait (bounded) for the CRITICAL ticket's breach to be recorded.
      const deadline = Date.now() + 20_000;
      while (!(await http.get(`/api/v2/tickets/${created[3].id}`).expect(200)).body.sla.breached) {
        if (Date.now() > deadline) throw new Error('no breach recorded');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });

    it('filters by slaBreached in v2 and v1', async () => {
      expect(only((await http.get('/api/v2/tickets?slaBreached=true&limit=100').expect(200)).body.items)).toEqual([created[3].id]);
      expect(only((await http.get('/api/v2/tickets?slaBreached=false&limit=100').expect(200)).body.items)).toEqual(ids().slice(0, 3));
      expect(only((await http.get('/api/tickets?slaBreached=true').expect(200)).body)).toEqual([created[3].id]);
    });

    it('sorts by slaDueAt, tickets without a running clock last, across pages', async () => {
      // Due: CRITICAL (breached, 1 s), HIGH (its first response in 10 h), LOW (10 h, created first); RESOLVED: no running clock.
      const order = [created[3].id, created[0].id, created[1].id, created[2].id];
      const all = only((await http.get('/api/v2/tickets?sort=slaDueAt&limit=100').expect(200)).body.items);
      expect(all).toEqual(order);
      const seen: number[] = [];
      let next = '/api/v2/tickets?sort=slaDueAt&limit=1';
      while (next) {
        const body = (await http.get(next).expect(200)).body;
        seen.push(...body.items.map((item: Json) => item.id));
        next = body.nextCursor && `/api/v2/tickets?sort=slaDueAt&limit=1&cursor=${encodeURIComponent(body.nextCursor)}`;
      }
      expect(seen.filter((id) => ids().includes(id))).toEqual(order);
      const v1 = (await http.get('/api/tickets?sort=slaDueAt').expect(200)).body;
      expect(only(v1)).toEqual(order);
      expect(Object.keys(v1[0])).toEqual([
        'id',
        'title',
        'description',
        'status',
        'priority',
        'requesterEmail',
        'assignedTo',
        'createdAt',
        'updatedAt',
        'resolvedAt',
      ]);
    });

    it('filters by slaDueBefore, which a ticket without a running clock never matches', async () => {
      const before = new Date(Date.parse(created[3].createdAt) + H).toISOString();
      expect(only((await http.get(`/api/v2/tickets?slaDueBefore=${before}&limit=100`).expect(200)).body.items)).toEqual([created[3].id]);
      const later = new Date(Date.now() + 100 * H).toISOString();
      expect(only((await http.get(`/api/v2/tickets?slaDueBefore=${later}&limit=100`).expect(200)).body.items)).toEqual([
        created[0].id,
        created[1].id,
        created[3].id,
      ]);
    });

    it('answers 400 for values they cannot take', async () => {
      await http.get('/api/v2/tickets?slaBreached=maybe').expect(400);
      await http.get('/api/v2/tickets?slaDueBefore=yesterday').expect(400);
      await http.get('/api/tickets?slaBreached=maybe').expect(400);
    });
  });

  describe('plans', () => {
    beforeAll(async () => {
      await db.query(`
        INSERT INTO tickets (title, description, status, priority, requester_email, assigned_to, created_at, updated_at, sla_due_at, sla_breached)
        SELECT CONCAT('Ticket ', seq), 'Printer jams', IF(seq % 2 = 0, 'OPEN', 'IN_PROGRESS'), 'HIGH', CONCAT('user', seq % 50, '@example.com'),
               IF(seq % 3 = 0, 'agent@example.com', NULL),
               TIMESTAMP'2026-01-01 00:00:00' + INTERVAL seq SECOND, TIMESTAMP'2026-01-01 00:00:00' + INTERVAL seq SECOND,
               IF(seq % 10 = 0, TIMESTAMP'2026-01-01 00:00:00' + INTERVAL (seq * 7919 % ${ROWS}) MINUTE, '9999-12-31 23:59:59.999'),
               seq % 10 = 0 AND seq % 30 = 0
        FROM seq_1_to_${ROWS}`);
      await db.query('ANALYZE TABLE tickets');
    }, 60_000);

    async function plan(raw: Record<string, string>, depth: number): Promise<{ explain: Json; analyze: Json }> {
      const first = parseTicketQuery({ ...raw, limit: String(LIMIT) }, 'v2', true);
      let query = first;
      if (depth > 0) {
        const [[row]] = await db.query<any[]>(
          `${ticketListSql({ ...first, page: undefined }).sql} LIMIT 1 OFFSET ${depth - 1}`,
          ticketListSql(first).params,
        );
        const after = first.sort.map(({ field }) => (field === 'id' ? Number(row.id) : (row.sla_due_at as Date).getTime()));
        query = { ...first, page: { ...first.page!, after } };
      }
      const { sql, params } = ticketListSql(query);
      const [[explain]] = await db.query<any[]>(`EXPLAIN ${sql}`, params);
      const [[analyze]] = await db.query<any[]>(`ANALYZE ${sql}`, params);
      return { explain, analyze };
    }

    it.each([
      ['sort=slaDueAt', 'idx_tickets_sla_due', { sort: 'slaDueAt' }],
      ['slaDueBefore + sort=slaDueAt', 'idx_tickets_sla_due', { slaDueBefore: '2026-01-10T00:00:00Z', sort: 'slaDueAt' }],
      ['slaBreached=true + sort=slaDueAt', 'idx_tickets_sla_breached', { slaBreached: 'true', sort: 'slaDueAt' }],
      ['slaBreached=false + sort=-slaDueAt', 'idx_tickets_sla_breached', { slaBreached: 'false', sort: '-slaDueAt' }],
      ['slaBreached=true (by id)', 'idx_tickets_sla_breached_id', { slaBreached: 'true' }],
      ['status=OPEN + sort=slaDueAt', 'idx_tickets_status_sla_due', { status: 'OPEN', sort: 'slaDueAt' }],
      ['assignedTo + sort=slaDueAt', 'idx_tickets_assignee_sla_due', { assignedTo: 'agent@example.com', sort: 'slaDueAt' }],
    ])('%s is read through %s without a filesort, and a deep page reads no more rows than the first', async (_name, index, raw) => {
      for (const depth of [0, 150]) {
        const { explain, analyze } = await plan(raw, depth);
        expect({ depth, key: explain.key, filesort: /filesort/i.test(explain.Extra ?? '') }).toEqual({
          depth,
          key: index,
          filesort: false,
        });
        expect(Number(analyze.r_rows)).toBeLessThanOrEqual(LIMIT + 1);
      }
    });
  });
});
