import type { INestApplication } from '@nestjs/common';
import { HttpClient, type HttpResponse, listen, parseRawResponse, rawExchange } from '../support/http-client.js';
import { expectProblem } from '../support/problem-json.js';
import { expectSpringError } from '../support/spring-error.js';
import { createTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

const JSON_TYPE = { 'content-type': 'application/json' };

/** Bad list parameters and the field error each gets, in v1 (Spring's body) and in v2 (problem+json). */
const BAD_VALUES: Array<[string, string, string, unknown]> = [
  ['priority=URGENT', 'priority', 'typeMismatch', 'URGENT'],
  ['priority=high', 'priority', 'typeMismatch', 'high'],
  ['createdAfter=2026-01-01', 'createdAfter', 'typeMismatch', '2026-01-01'],
  ['createdBefore=2026-02-30T00:00:00Z', 'createdBefore', 'typeMismatch', '2026-02-30T00:00:00Z'],
  ['updatedAfter=2026-01-01T10:00:00', 'updatedAfter', 'typeMismatch', '2026-01-01T10:00:00'],
  ['updatedBefore=1700000000', 'updatedBefore', 'typeMismatch', '1700000000'],
  ['sort=title', 'sort', 'typeMismatch', 'title'],
  ['sort=id,desc', 'sort', 'typeMismatch', 'desc'],
  ['sort=status,-status', 'sort', 'typeMismatch', 'status,-status'],
  ['limit=0', 'limit', 'Range', '0'],
  ['limit=1001', 'limit', 'Range', '1001'],
  ['limit=ten', 'limit', 'typeMismatch', 'ten'],
  ['limit=-1', 'limit', 'typeMismatch', '-1'],
  [`q=${'x'.repeat(201)}`, 'q', 'Size', 'x'.repeat(201)],
  ['total=yes', 'total', 'typeMismatch', 'yes'],
  ['limit=5&cursor=bm90IGEgY3Vyc29y.AAAAAAAAAAAAAAAA', 'cursor', 'InvalidCursor', 'bm90IGEgY3Vyc29y.AAAAAAAAAAAAAAAA'],
];

describe('Errors of ticket queries, and v2 errors from every layer', () => {
  let app: INestApplication;
  let port: number;
  let client: HttpClient;

  beforeAll(async () => {
    app = await createTestApp();
    port = await listen(app);
    client = new HttpClient(port);
    for (let i = 0; i < 3; i++)
      await client.send({ method: 'POST', path: '/api/tickets', headers: JSON_TYPE, body: JSON.stringify(buildTicketRequest()) });
  });

  afterAll(async () => {
    client.close();
    await app.close();
  });

  const get = (path: string) => client.send({ method: 'GET', path });

  describe('v1: 400 in the Spring shape, naming the parameter in errors[]', () => {
    it.each(BAD_VALUES)('%s', async (query, field, code, rejectedValue) => {
      const body = expectSpringError(await get(`/api/tickets?${query}`), 400, '/api/tickets');
      expect(body.message).toBe("Validation failed for object='ticketQuery'. Error count: 1");
      expect(body.errors).toEqual([
        expect.objectContaining({
          objectName: 'ticketQuery',
          field,
          code,
          rejectedValue,
          codes: expect.arrayContaining([`${code}.ticketQuery.${field}`]),
        }),
      ]);
    });

    it('reports every bad parameter at once', async () => {
      const body = expectSpringError(await get('/api/tickets?priority=x&limit=0&sort=nope'), 400, '/api/tickets');
      expect(body.errors.map((e: { field: string }) => e.field)).toEqual(['priority', 'sort', 'limit']);
    });

    it('answers an unknown status exactly as before the new parameters, also when they are bad too', async () => {
      for (const path of ['/api/tickets?status=open', '/api/tickets?status=open&limit=0']) {
        const body = expectSpringError(await get(path), 400, '/api/tickets');
        expect(body).toEqual({
          timestamp: expect.any(String),
          status: 400,
          error: 'Bad Request',
          message: "Failed to convert value of type 'java.lang.String' to required type 'TicketStatus'; No enum constant TicketStatus.open",
          path: '/api/tickets',
        });
      }
    });

    it('refuses a cursor without limit, a cursor from another query, and an altered one', async () => {
      const page = await get('/api/tickets?limit=1&sort=-id');
      const cursor = new URL(/<([^>]+)>/.exec(String(page.headers.link))![1], 'http://host').searchParams.get('cursor')!;
      expect((await get(`/api/tickets?limit=1&sort=-id&cursor=${cursor}`)).status).toBe(200);
      const altered = cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A');
      for (const query of [
        `sort=-id&cursor=${cursor}`,
        `limit=1&sort=id&cursor=${cursor}`,
        `limit=1&priority=LOW&sort=-id&cursor=${cursor}`,
        `limit=1&sort=-id&cursor=${altered}`,
      ]) {
        const body = expectSpringError(await get(`/api/tickets?${query}`), 400, '/api/tickets');
        expect(body.errors).toEqual([expect.objectContaining({ field: 'cursor', code: 'InvalidCursor' })]);
      }
    });

    it('ignores unknown parameters, as it always has', async () => {
      expect((await get('/api/tickets?page=0&size=1&foo=bar')).status).toBe(200);
    });
  });

  describe('v2: 400 as problem+json with the same codes', () => {
    it.each([
      ...BAD_VALUES,
      ['status=open', 'status', 'typeMismatch', 'open'],
      ['status=OPEN,closed', 'status', 'typeMismatch', 'closed'],
      ['page=2', 'page', 'UnknownParameter', '2'],
      ['requesterEmail=a@b.c&requesterEmail=d@e.f', 'requesterEmail', 'Repeated', ['a@b.c', 'd@e.f']],
    ])('%s', async (query, field, code, rejectedValue) => {
      const body = expectProblem(await get(`/api/v2/tickets?${query}`), 400, '/api/v2/tickets');
      expect(body).toMatchObject({ type: 'urn:problem-type:ticket-service:validation-failed', title: 'Validation failed' });
      expect(body.detail).toBe("Validation failed for object='ticketQuery'. Error count: 1");
      expect(body.errors).toEqual([{ field, code, message: expect.any(String), rejectedValue }]);
    });

    it('validates bodies with the codes of v1', async () => {
      const response = await client.send({
        method: 'POST',
        path: '/api/v2/tickets',
        headers: JSON_TYPE,
        body: JSON.stringify(
          buildTicketRequest({ title: ' ', description: 'd'.repeat(2001), status: 'open', priority: undefined, requesterEmail: 'x' }),
        ),
      });
      const body = expectProblem(response, 400, '/api/v2/tickets');
      expect(body.errors.map((e: { field: string; code: string }) => [e.field, e.code])).toEqual([
        ['title', 'NotBlank'],
        ['description', 'Size'],
        ['status', 'typeMismatch'],
        ['priority', 'NotNull'],
        ['requesterEmail', 'Email'],
      ]);
      expect(body.errors[0]).toEqual({ field: 'title', code: 'NotBlank', message: 'Title is required', rejectedValue: ' ' });
    });

    it('lists the first 20 of 7,500 bad values and counts them all', async () => {
      const response = await get(`/api/v2/tickets?priority=${Array(7_500).fill('X').join(',')}`);
      const body = expectProblem(response, 400, '/api/v2/tickets');
      expect(body.detail).toBe("Validation failed for object='ticketQuery'. Error count: 7500");
      expect(body.errors).toHaveLength(20);
      expect(body.errors[19]).toMatchObject({ field: 'priority', code: 'typeMismatch', rejectedValue: 'X' });
      expect(response.body.length).toBeLessThan(10_000);
    });
  });

  describe('v2: every other error, from any layer, as problem+json', () => {
    const expectAboutBlank = (response: HttpResponse, status: number, path: string, title: string) => {
      const body = expectProblem(response, status, path);
      expect(body).toMatchObject({ type: 'about:blank', title });
      return body;
    };

    it('404 for an unknown ticket, an unknown path under /api/v2, and /api/v2 itself', async () => {
      expect(expectAboutBlank(await get('/api/v2/tickets/987654321'), 404, '/api/v2/tickets/987654321', 'Not Found').detail).toBe(
        'Ticket not found with id: 987654321',
      );
      expect(expectAboutBlank(await get('/api/v2/nothing'), 404, '/api/v2/nothing', 'Not Found').detail).toBe(
        'No endpoint GET "/api/v2/nothing".',
      );
      expectAboutBlank(await get('/api/v2'), 404, '/api/v2', 'Not Found');
    });

    it('400 for a malformed id and for malformed JSON', async () => {
      expectAboutBlank(await get('/api/v2/tickets/abc'), 400, '/api/v2/tickets/abc', 'Bad Request');
      const malformed = await client.send({ method: 'POST', path: '/api/v2/tickets', headers: JSON_TYPE, body: '{"title":' });
      expect(expectAboutBlank(malformed, 400, '/api/v2/tickets', 'Bad Request').detail).toMatch(/^JSON parse error/);
    });

    it('405 with Allow', async () => {
      const response = await client.send({ method: 'POST', path: '/api/v2/tickets/1', headers: JSON_TYPE, body: '{}' });
      expectAboutBlank(response, 405, '/api/v2/tickets/1', 'Method Not Allowed');
      expect(String(response.headers.allow).split(', ').sort()).toEqual(['DELETE', 'GET', 'PATCH', 'PUT']);
    });

    it('413 for a body over 1 MiB and 415 for a body not declared as JSON', async () => {
      const big = JSON.stringify(buildTicketRequest({ description: 'x'.repeat(1024 * 1024) }));
      expectAboutBlank(
        await client.send({ method: 'POST', path: '/api/v2/tickets', headers: JSON_TYPE, body: big }),
        413,
        '/api/v2/tickets',
        'Payload Too Large',
      );
      const plain = await client.send({ method: 'POST', path: '/api/v2/tickets', headers: { 'content-type': 'text/plain' }, body: 'x' });
      expectAboutBlank(plain, 415, '/api/v2/tickets', 'Unsupported Media Type');
    });

    it('412 for a stale If-Match', async () => {
      const created = await client.send({
        method: 'POST',
        path: '/api/v2/tickets',
        headers: JSON_TYPE,
        body: JSON.stringify(buildTicketRequest()),
      });
      const path = `/api/v2/tickets/${JSON.parse(created.body).id}`;
      expectAboutBlank(await client.send({ method: 'DELETE', path, headers: { 'if-match': '"1-1"' } }), 412, path, 'Precondition Failed');
    });

    it('431 from Node itself, before any route, for headers over 16 KiB; v1 keeps the Spring shape there', async () => {
      const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
      expectAboutBlank(
        parseRawResponse((await rawExchange(port, [request('/api/v2/tickets')])).received),
        431,
        '/api/v2/tickets',
        'Request Header Fields Too Large',
      );
      expectSpringError(parseRawResponse((await rawExchange(port, [request('/api/tickets')])).received), 431, '/api/tickets');
    });

    it('400 for too many query parameters, refused before routing', async () => {
      const query = Array.from({ length: 101 }, (_, i) => `p${i}=1`).join('&');
      expectAboutBlank(await get(`/api/v2/tickets?${query}`), 400, '/api/v2/tickets', 'Bad Request');
    });
  });
});
