import { once } from 'node:events';
import { get, type IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import { jest } from '@jest/globals';
import { Logger, type INestApplication } from '@nestjs/common';
import supertest from 'supertest';
import type { Connection, ResultSetHeader } from 'mysql2/promise';
import fc from 'fast-check';
import { connectToDatabase } from '../support/database.js';
import { waitUntil } from '../support/waits.js';
import { HttpClient, listen } from '../support/http-client.js';
import { expectSpringError } from '../support/spring-error.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { createTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { TicketsService } from '../../src/tickets/tickets.service.js';
import { CommentsService } from '../../src/comments/comments.service.js';
import { HistoryService } from '../../src/history/history.service.js';
import { parseKeysetPage } from '../../src/common/paging/keyset-page.js';
import { DatabasePool } from '../../src/database/database-pool.js';
import { parseTicketQuery } from '../../src/tickets/query/ticket-query.js';

/*
 * GET /api/tickets (v1, unpaged) is streamed row by row (decision 36): the same bytes as the array built whole
 * (TicketsService.list, the path of every paged list, answered by res.json as before), a client that goes away
 * stops the statement, and a failure after the first byte leaves the client with JSON it cannot parse.
 */

const SEEDED = 10_000;
const tag = `stream-${randomBytes(4).toString('hex')}`;

/** Every kind of value a field can hold: escapes, control characters, emoji, long texts, nulls. */
function seededRow(i: number, base: number): unknown[] {
  const titles = [
    `Plain title ${i}`,
    `Quotes " and \\ backslash ${i}`,
    `Line\nbreak\ttab\rreturn \u0001\u001f ${i}`,
    `Emoji 🎫🔥 and 日本語 Zürich ${i}`,
    `Separators \u2028\u2029 </script> ${i}`,
  ];
  const descriptions = ['d', '😀'.repeat(2_000), 'é'.repeat(1_000) + 'a'.repeat(1_000), `"${'\\'.repeat(998)}"`, 'x'.repeat(2_000)];
  const statuses = ['OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED'];
  const created = new Date(base + i * 1_001);
  return [
    titles[i % titles.length],
    descriptions[i % descriptions.length],
    statuses[i % statuses.length],
    ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'][i % 4],
    `${tag}-${i % 50}@example.com`,
    i % 3 === 0 ? null : `team-${i % 7} "ü" 🎧`,
    created,
    new Date(created.getTime() + 777),
    i % 5 === 3 ? new Date(created.getTime() + 3_600_123) : null,
  ];
}

describe('Streamed ticket list (GET /api/tickets, unpaged)', () => {
  let app: INestApplication;
  let port: number;
  let client: HttpClient;
  let db: Connection;

  beforeAll(async () => {
    app = await createTestApp();
    port = await listen(app);
    client = new HttpClient(port);
    db = await dbConnection();
    const base = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
    for (let start = 0; start < SEEDED; start += 500) {
      const rows = Array.from({ length: 500 }, (_, k) => seededRow(start + k, base));
      await db.query(
        'INSERT INTO tickets (title, description, status, priority, requester_email, assigned_to, created_at, updated_at, resolved_at) VALUES ?',
        [rows],
      );
    }
  });

  afterAll(async () => {
    client.close();
    await app.close();
    // The seeded rows are shaped for this file (written around the API): later suites of the run share the database.
    await db.query('DELETE FROM tickets WHERE requester_email LIKE ? OR requester_email LIKE ?', [`${tag}-%`, `any-${tag}-%`]);
    await db.end();
  });

  /** The answer of the code path before streaming: the whole list built, then res.json (JSON.stringify) of it. */
  const builtWhole = async (query: Record<string, string>) =>
    JSON.stringify((await app.get(TicketsService).list(parseTicketQuery(query, 'v1'))).items);

  const runningLists = async () =>
    (
      await db.query('SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND info LIKE ?', [
        `/* stream %SELECT CONCAT('{"id":'%FROM tickets%`,
      ])
    )[0] as Array<{
      id: number;
    }>;

  it('answers 0 tickets as []', async () => {
    const response = await client.send({ method: 'GET', path: `/api/tickets?requesterEmail=nobody-${tag}@example.com` });
    expect(response.status).toBe(200);
    expect(response.body).toBe('[]');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('answers 1 ticket with the bytes of the ticket read alone, in an array', async () => {
    const email = `one-${tag}@example.com`;
    const created = await createTicket(supertest(app.getHttpServer()), {
      requesterEmail: email,
      title: 'Ticket "one" \\ 🎫\n',
      assignedTo: null,
    });
    const alone = await client.send({ method: 'GET', path: `/api/tickets/${created.body.id}` });
    const response = await client.send({ method: 'GET', path: `/api/tickets?requesterEmail=${encodeURIComponent(email)}` });
    expect(response.status).toBe(200);
    expect(response.body).toBe(`[${alone.body}]`);
    expect(response.body).toBe(await builtWhole({ requesterEmail: email }));
  });

  it(`answers ${SEEDED} tickets with every kind of value byte for byte as the list built whole, with and without filters`, async () => {
    const queries: Array<Record<string, string>> = [{}, { status: 'OPEN' }, { requesterEmail: `${tag}-7@example.com` }];
    for (const query of queries) {
      const expected = await builtWhole(query);
      const response = await client.send({ method: 'GET', path: `/api/tickets?${new URLSearchParams(query)}` });
      expect(response.status).toBe(200);
      expect(response.headers['transfer-encoding']).toBe('chunked');
      expect(response.headers.etag).toBeUndefined();
      expect(response.body.length).toBe(expected.length);
      expect(response.body === expected).toBe(true);
    }
    const all = JSON.parse((await client.send({ method: 'GET', path: '/api/tickets' })).body) as Array<{ requesterEmail: string }>;
    expect(all.filter((ticket) => ticket.requesterEmail.startsWith(`${tag}-`))).toHaveLength(SEEDED);
  });

  it('writes, for any values the columns can hold, the bytes JSON.stringify writes for them', async () => {
    // The database writes each ticket's JSON (ticket-row.ts): every character MariaDB stores, not only the seeded kinds.
    const text = (maxLength: number) => fc.string({ unit: 'binary', maxLength }).filter((value) => value.isWellFormed());
    const ticket = fc.record({
      title: text(255),
      description: text(2_000),
      status: fc.constantFrom('OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED'),
      priority: fc.constantFrom('LOW', 'MEDIUM', 'HIGH', 'CRITICAL'),
      assignedTo: fc.option(text(255), { nil: null }),
      createdAt: fc.date({ min: new Date('1970-01-02T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }),
      resolvedAt: fc.option(
        fc.date({ min: new Date('1970-01-02T00:00:00.000Z'), max: new Date('2999-12-31T23:59:59.999Z'), noInvalidDate: true }),
        { nil: null },
      ),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(ticket, { minLength: 1, maxLength: 8 }), async (tickets) => {
        const email = `any-${tag}-${run++}@example.com`;
        const expected = [];
        for (const t of tickets) {
          const [inserted] = await db.query<ResultSetHeader>(
            'INSERT INTO tickets (title, description, status, priority, requester_email, assigned_to, created_at, updated_at, resolved_at) VALUES (?)',
            [[t.title, t.description, t.status, t.priority, email, t.assignedTo, t.createdAt, t.createdAt, t.resolvedAt]],
          );
          const at = t.createdAt.toISOString();
          expected.push({
            id: inserted.insertId,
            title: t.title,
            description: t.description,
            status: t.status,
            priority: t.priority,
            requesterEmail: email,
            assignedTo: t.assignedTo,
            createdAt: at,
            updatedAt: at,
            resolvedAt: t.resolvedAt?.toISOString() ?? null,
          });
        }
        const response = await client.send({ method: 'GET', path: `/api/tickets?requesterEmail=${encodeURIComponent(email)}` });
        expect(response.body).toBe(JSON.stringify(expected));
      }),
      { numRuns: 60 },
    );
  });

  it('answers HEAD with the headers alone, and If-None-Match: * with 304, as res.json did', async () => {
    const response = await client.send({ method: 'HEAD', path: '/api/tickets' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toBe('');
    const conditional = await client.send({ method: 'GET', path: '/api/tickets', headers: { 'if-none-match': '*' } });
    expect(conditional.status).toBe(304);
    expect(conditional.body).toBe('');
  });

  it('stops the statement when the client goes away mid-stream, and the pool serves on', async () => {
    const request = get({ host: '127.0.0.1', port, path: '/api/tickets' });
    const [response] = (await once(request, 'response')) as [IncomingMessage];
    // The client reads nothing more: back-pressure holds the statement in the database, mid-result.
    response.pause();
    expect(response.statusCode).toBe(200);
    await waitUntil(async () => (await runningLists()).length === 1, 10_000, 'the list statement running');
    expect(response.complete).toBe(false);
    request.destroy();
    await waitUntil(async () => (await runningLists()).length === 0, 10_000, 'no list statement left running');
    const next = await client.send({ method: 'GET', path: `/api/tickets?requesterEmail=${tag}-1@example.com` });
    expect(JSON.parse(next.body)).toHaveLength(SEEDED / 50);
  });

  it("streams a ticket's comments and history unpaged as well: the bytes of the list built whole, [] or 404", async () => {
    const http = supertest(app.getHttpServer());
    const ticket = (await createTicket(http, { requesterEmail: `sub-${tag}@example.com` })).body as { id: number };
    const bare = (await createTicket(http, { requesterEmail: `sub-${tag}@example.com` })).body as { id: number };
    for (const body of ['First "reply" \\ 🎫', 'Line\nbreak \u2028', 'x'.repeat(2_000)]) {
      await http.post(`/api/tickets/${ticket.id}/comments`).send({ body, author: null }).expect(201);
    }
    await http.patch(`/api/tickets/${ticket.id}`).send({ status: 'IN_PROGRESS', assignedTo: null }).expect(200);
    const builtWhole = {
      comments: async (id: number) =>
        JSON.stringify((await app.get(CommentsService).list(String(id), parseKeysetPage({}, 'v1', `comments:${id}`, 'pageQuery'))).items),
      history: async (id: number) =>
        JSON.stringify((await app.get(HistoryService).list(String(id), parseKeysetPage({}, 'v1', `history:${id}`, 'pageQuery'))).items),
    };
    for (const list of ['comments', 'history'] as const) {
      const streamed = await client.send({ method: 'GET', path: `/api/tickets/${ticket.id}/${list}` });
      expect(streamed.status).toBe(200);
      expect(streamed.headers['transfer-encoding']).toBe('chunked');
      expect(streamed.body).toBe(await builtWhole[list](ticket.id));
      expect(JSON.parse(streamed.body).length).toBeGreaterThanOrEqual(list === 'comments' ? 3 : 2);
      const missing = await client.send({ method: 'GET', path: `/api/tickets/999999999/${list}` });
      expectSpringError(missing, 404, `/api/tickets/999999999/${list}`);
    }
    expect((await client.send({ method: 'GET', path: `/api/tickets/${bare.id}/comments` })).body).toBe('[]');
  });

  describe('through a TCP proxy to the database', () => {
    let proxy: TcpProxy;
    let proxied: INestApplication;
    let proxiedPort: number;

    beforeAll(async () => {
      proxy = await TcpProxy.start(Number(process.env.DB_PORT ?? 3306));
      proxied = await createTestApp({ env: { DB_PORT: String(proxy.port), DB_QUERY_TIMEOUT_MS: '1000' } });
      proxiedPort = await listen(proxied);
    });

    afterAll(async () => {
      await proxied.close();
      await proxy.stop();
    });

    afterEach(() => proxy.restore());

    it('leaves the client with JSON it cannot parse when the database goes away after the first byte, and logs it once', async () => {
      const errors = jest.spyOn(Logger.prototype, 'error');
      try {
        const request = get({ host: '127.0.0.1', port: proxiedPort, path: '/api/tickets' });
        const [response] = (await once(request, 'response')) as [IncomingMessage];
        response.pause();
        expect(response.statusCode).toBe(200);
        await waitUntil(async () => (await runningLists()).length === 1, 10_000, 'the list statement running');
        proxy.cut();
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        const ended = new Promise<string>((resolve) => {
          response.once('end', () => resolve('end'));
          response.once('aborted', () => resolve('aborted'));
          response.once('error', () => resolve('error'));
          response.once('close', () => resolve('close'));
        });
        response.resume();
        await ended;
        const body = Buffer.concat(chunks).toString('utf8');
        expect(body.startsWith('[{"id":')).toBe(true);
        expect(response.complete).toBe(false);
        expect(() => JSON.parse(body)).toThrow();
        const streamFailures = () => errors.mock.calls.filter(([message]) => String(message).includes('failed after the first byte'));
        await waitUntil(() => streamFailures().length > 0, 10_000, 'the failure logged');
        expect(streamFailures()).toHaveLength(1);
      } finally {
        errors.mockRestore();
      }
    });

    it('answers 503 in the Spring shape when no first row comes within the deadline, and gives up the connection', async () => {
      const destroyed = jest.spyOn(DatabasePool.prototype, 'destroy');
      try {
        // A pooled connection open before the replies are held, so that the statement goes out.
        await warm(proxiedPort);
        proxy.holdReplies();
        const sent = proxy.untilClientSends('FROM tickets ORDER BY');
        const response = await new HttpClient(proxiedPort).send({ method: 'GET', path: '/api/tickets' });
        await sent;
        expectSpringError(response, 503, '/api/tickets');
        await waitUntil(() => destroyed.mock.calls.length > 0, 10_000, 'the connection destroyed');
      } finally {
        proxy.releaseReplies();
        destroyed.mockRestore();
      }
      await waitUntil(async () => (await runningLists()).length === 0, 10_000, 'no list statement left running');
      const next = await new HttpClient(proxiedPort).send({ method: 'GET', path: `/api/tickets?requesterEmail=${tag}-2@example.com` });
      expect(JSON.parse(next.body)).toHaveLength(SEEDED / 50);
    });

    it('gives up the statement of a client that went away before the first row, once that row comes', async () => {
      const patient = await createTestApp({ env: { DB_PORT: String(proxy.port), DB_QUERY_TIMEOUT_MS: '30000' } });
      const destroyed = jest.spyOn(DatabasePool.prototype, 'destroy');
      try {
        const patientPort = await listen(patient);
        await warm(patientPort);
        proxy.holdReplies();
        const sent = proxy.untilClientSends('FROM tickets ORDER BY');
        const request = get({ host: '127.0.0.1', port: patientPort, path: '/api/tickets' });
        request.on('error', () => undefined);
        await sent;
        request.destroy();
        expect(destroyed).not.toHaveBeenCalled();
        proxy.releaseReplies();
        await waitUntil(() => destroyed.mock.calls.length > 0, 10_000, 'the connection destroyed');
        await waitUntil(async () => (await runningLists()).length === 0, 10_000, 'no list statement left running');
      } finally {
        proxy.releaseReplies();
        destroyed.mockRestore();
        await patient.close();
      }
    });
  });
});

/** A list answered, so that the app's pool holds an open connection. */
async function warm(port: number): Promise<void> {
  expect((await new HttpClient(port).send({ method: 'GET', path: `/api/tickets?requesterEmail=warm-${tag}@example.com` })).status).toBe(
    200,
  );
}

function dbConnection(): Promise<Connection> {
  return connectToDatabase({ timezone: 'Z' });
}
