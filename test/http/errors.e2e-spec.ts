import { listen, parseRawResponse, rawExchange } from '../support/http-client.js';
import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

const SPRING_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;
const FIELD_ERROR_KEYS = ['codes', 'arguments', 'defaultMessage', 'objectName', 'field', 'rejectedValue', 'bindingFailure', 'code'];

interface FieldError {
  field: string;
  code: string;
  [key: string]: unknown;
}

describe('Error responses', () => {
  const testApp = useTestApp();

  function expectErrorShape(body: Record<string, unknown>, status: number, error: string, path: string) {
    expect(body).toMatchObject({ timestamp: expect.stringMatching(SPRING_TIMESTAMP), status, error, path });
    const keys = Object.keys(body);
    expect(keys[0]).toBe('timestamp');
    expect(keys.at(-1)).toBe('path');
    expect(keys).not.toContain('stack');
  }

  async function postInvalid(body: unknown) {
    const response = await testApp.http
      .post('/api/tickets')
      .set('Content-Type', 'application/json')
      .send(body as object)
      .expect(400);
    expectErrorShape(response.body, 400, 'Bad Request', '/api/tickets');
    return response.body as { message: string; errors: FieldError[] };
  }

  const pairs = (errors: FieldError[]) => errors.map((e) => [e.field, e.code]);

  describe('validation failure (400)', () => {
    it('reports every violated field at once, in field order, with Spring codes', async () => {
      const body = await postInvalid({ title: '   ', requesterEmail: 'not-an-email' });
      expect(body.message).toBe("Validation failed for object='ticketRequest'. Error count: 5");
      expect(pairs(body.errors)).toEqual([
        ['title', 'NotBlank'],
        ['description', 'NotBlank'],
        ['status', 'NotNull'],
        ['priority', 'NotNull'],
        ['requesterEmail', 'Email'],
      ]);
    });

    it('renders each field error in Spring binding-error form', async () => {
      const { errors } = await postInvalid(buildTicketRequest({ title: '' }));
      expect(errors).toHaveLength(1);
      expect(Object.keys(errors[0])).toEqual(FIELD_ERROR_KEYS);
      expect(errors[0]).toEqual({
        codes: ['NotBlank.ticketRequest.title', 'NotBlank.title', 'NotBlank.java.lang.String', 'NotBlank'],
        arguments: [{ codes: ['ticketRequest.title', 'title'], arguments: null, defaultMessage: 'title', code: 'title' }],
        defaultMessage: 'Title is required',
        objectName: 'ticketRequest',
        field: 'title',
        rejectedValue: '',
        bindingFailure: false,
        code: 'NotBlank',
      });
    });

    it.each([
      ['title', 'Title is required'],
      ['description', 'Description is required'],
      ['requesterEmail', 'Requester email is required'],
    ])('answers NotBlank for a missing or whitespace-only %s', async (field, message) => {
      for (const value of [undefined, null, '']) {
        const { errors } = await postInvalid(buildTicketRequest({ [field]: value }));
        expect(errors).toEqual([expect.objectContaining({ field, code: 'NotBlank', defaultMessage: message })]);
      }
      // Whitespace is blank; for an e-mail address it is also malformed, which Hibernate Validator reports too.
      const { errors } = await postInvalid(buildTicketRequest({ [field]: ' \t\n' }));
      expect(errors).toContainEqual(expect.objectContaining({ field, code: 'NotBlank', defaultMessage: message }));
    });

    it.each([
      ['status', 'Status is required'],
      ['priority', 'Priority is required'],
    ])('answers NotNull for a missing %s', async (field, message) => {
      const { errors } = await postInvalid(buildTicketRequest({ [field]: undefined }));
      expect(errors).toEqual([expect.objectContaining({ field, code: 'NotNull', defaultMessage: message, rejectedValue: null })]);
    });

    it.each(['plainaddress', 'no-at.example.com', '@example.com', 'user@', 'two words@example.com', 'a@b@', 'user@exa mple.com'])(
      'answers Email for the malformed address %p',
      async (requesterEmail) => {
        const { errors } = await postInvalid(buildTicketRequest({ requesterEmail }));
        expect(pairs(errors)).toEqual([['requesterEmail', 'Email']]);
        expect(errors[0].defaultMessage).toBe('Invalid email format');
      },
    );

    it.each(['user@localhost', 'first.last+tag@sub.example.co.uk', 'UPPER@EXAMPLE.COM'])(
      'accepts the address %p',
      async (requesterEmail) => {
        await testApp.http.post('/api/tickets').send(buildTicketRequest({ requesterEmail })).expect(201);
      },
    );

    it('answers Size with max and min arguments for column overflows, counting code points', async () => {
      const { errors } = await postInvalid(
        buildTicketRequest({
          title: '😀'.repeat(256),
          description: 'd'.repeat(2001),
          requesterEmail: `${'a'.repeat(64)}@${`${'b'.repeat(60)}.`.repeat(3)}example.com`,
          assignedTo: 'x'.repeat(256),
        }),
      );
      expect(pairs(errors)).toEqual([
        ['title', 'Size'],
        ['description', 'Size'],
        ['requesterEmail', 'Size'],
        ['assignedTo', 'Size'],
      ]);
      expect(errors[1].arguments).toEqual([
        { codes: ['ticketRequest.description', 'description'], arguments: null, defaultMessage: 'description', code: 'description' },
        2000,
        0,
      ]);
    });

    it('answers typeMismatch for an enum value outside the enum, which is case-sensitive', async () => {
      const { errors } = await postInvalid(buildTicketRequest({ status: 'open', priority: 'URGENT' }));
      expect(pairs(errors)).toEqual([
        ['status', 'typeMismatch'],
        ['priority', 'typeMismatch'],
      ]);
      expect(errors[0]).toMatchObject({ rejectedValue: 'open', bindingFailure: true });
    });

    it.each([
      ['title', 42],
      ['description', { nested: true }],
      ['requesterEmail', ['a@b.c']],
      ['assignedTo', false],
      ['status', 1],
    ])('answers typeMismatch for a wrong JSON type in %s', async (field, value) => {
      const { errors } = await postInvalid(buildTicketRequest({ [field]: value }));
      expect(pairs(errors)).toEqual([[field, 'typeMismatch']]);
    });

    it('validates PUT bodies the same way and changes nothing', async () => {
      const ticket = (await testApp.http.post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
      const response = await testApp.http
        .put(`/api/tickets/${ticket.id}`)
        .send(buildTicketRequest({ priority: undefined }))
        .expect(400);
      expect(pairs(response.body.errors)).toEqual([['priority', 'NotNull']]);
      expect((await testApp.http.get(`/api/tickets/${ticket.id}`)).body).toEqual(ticket);
    });
  });

  describe('unreadable bodies (400)', () => {
    it.each([
      ['malformed JSON', '{"title": '],
      ['a JSON array', '[{"title":"x"}]'],
      ['a JSON string', '"text"'],
      ['a JSON number', '42'],
      ['JSON null', 'null'],
    ])('answers 400 with a message for %s', async (_name, raw) => {
      const response = await testApp.http.post('/api/tickets').set('Content-Type', 'application/json').send(raw).expect(400);
      expectErrorShape(response.body, 400, 'Bad Request', '/api/tickets');
      expect(response.body.message).toEqual(expect.any(String));
    });
  });

  describe('content type (415)', () => {
    it.each([
      ['POST', '/api/tickets', 'text/plain'],
      ['POST', '/api/tickets', 'application/x-www-form-urlencoded'],
      ['PUT', '/api/tickets/1', 'application/xml'],
    ])('%s %s with %s answers 415', async (method, path, contentType) => {
      const response = await testApp.http[method === 'POST' ? 'post' : 'put'](path)
        .set('Content-Type', contentType)
        .send(JSON.stringify(buildTicketRequest()))
        .expect(415);
      expectErrorShape(response.body, 415, 'Unsupported Media Type', path);
      expect(response.headers['content-type']).toMatch(/application\/json/);
    });

    it.each(['POST', 'PUT'])('answers 400 naming the missing fields for a %s declared as JSON with an empty body', async (method) => {
      const path = method === 'POST' ? '/api/tickets' : '/api/tickets/1';
      const response = await testApp.http[method === 'POST' ? 'post' : 'put'](path).set('Content-Type', 'application/json').expect(400);
      expectErrorShape(response.body, 400, 'Bad Request', path);
      expect(response.body.message).toBe("Validation failed for object='ticketRequest'. Error count: 5");
    });

    it('answers 415 for a POST without Content-Type', async () => {
      const response = await testApp.http.post('/api/tickets').expect(415);
      expectErrorShape(response.body, 415, 'Unsupported Media Type', '/api/tickets');
    });

    it('ignores Content-Type on GET and DELETE', async () => {
      await testApp.http.get('/api/tickets').set('Content-Type', 'text/plain').expect(200);
      await testApp.http.delete('/api/tickets/999999').set('Content-Type', 'text/plain').expect(404);
    });
  });

  describe('a POST or PUT declared as JSON without any body (neither Content-Length nor Transfer-Encoding)', () => {
    let port: number;

    beforeAll(async () => {
      port = await listen(testApp.app);
    });

    /** Sends the request line and headers alone over a raw socket: no client library adds a Content-Length. */
    async function bodiless(method: string, path: string, headers: string[]) {
      const { received } = await rawExchange(port, [
        [`${method} ${path} HTTP/1.1`, 'Host: x', ...headers, 'Connection: close', '', ''].join('\r\n'),
      ]);
      const response = parseRawResponse(received);
      return { status: response.status, body: JSON.parse(response.body) as Record<string, any> };
    }

    const withoutTimestamp = ({ timestamp: _timestamp, ...rest }: Record<string, unknown>) => rest;

    it.each([
      ['POST', '/api/tickets'],
      ['PUT', '/api/tickets/1'],
    ])('answers %s %s with 400 naming the missing fields, exactly as for an empty body', async (method, path) => {
      const response = await bodiless(method, path, ['Content-Type: application/json']);
      expect(response.status).toBe(400);
      expectErrorShape(response.body, 400, 'Bad Request', path);
      expect(response.body.message).toBe("Validation failed for object='ticketRequest'. Error count: 5");
      expect(pairs(response.body.errors)).toEqual([
        ['title', 'NotBlank'],
        ['description', 'NotBlank'],
        ['status', 'NotNull'],
        ['priority', 'NotNull'],
        ['requesterEmail', 'NotBlank'],
      ]);
      const empty = await bodiless(method, path, ['Content-Type: application/json', 'Content-Length: 0']);
      expect(withoutTimestamp(response.body)).toEqual(withoutTimestamp(empty.body));
    });

    it('takes a declared charset and a +json type as JSON too', async () => {
      expect((await bodiless('POST', '/api/tickets', ['Content-Type: application/json; charset=utf-8'])).status).toBe(400);
      expect((await bodiless('POST', '/api/tickets', ['Content-Type: application/merge-patch+json'])).status).toBe(400);
    });

    it('still answers 415 when the declared type is not JSON, or when none is declared', async () => {
      const plain = await bodiless('POST', '/api/tickets', ['Content-Type: text/plain']);
      expect(plain.status).toBe(415);
      expect(plain.body.message).toBe('Content-Type "text/plain" is not supported');
      const undeclared = await bodiless('PUT', '/api/tickets/1', []);
      expect(undeclared.status).toBe(415);
      expect(undeclared.body.message).toBe('Content-Type is missing; application/json is required');
    });
  });

  describe('path and query', () => {
    it.each(['abc', '0', '-1', '1.5', '99999999999999999999'])('answers 400 for the ticket id %p', async (id) => {
      const response = await testApp.http.get(`/api/tickets/${id}`).expect(400);
      expectErrorShape(response.body, 400, 'Bad Request', `/api/tickets/${id}`);
    });

    it('answers 400 for a status filter outside the enum', async () => {
      const response = await testApp.http.get('/api/tickets?status=open').expect(400);
      expectErrorShape(response.body, 400, 'Bad Request', '/api/tickets');
    });

    it('answers 404 in the error shape for an unknown path', async () => {
      const response = await testApp.http.get('/api/nothing-here').expect(404);
      expectErrorShape(response.body, 404, 'Not Found', '/api/nothing-here');
      expect(response.body.message).toBe('No endpoint GET "/api/nothing-here".');
    });

    it('answers 405 with an Allow header for an unsupported method on a known path', async () => {
      const one = await testApp.http.post('/api/tickets/1').send({}).expect(405);
      expectErrorShape(one.body, 405, 'Method Not Allowed', '/api/tickets/1');
      expect(one.headers.allow.split(', ').sort()).toEqual(['DELETE', 'GET', 'PATCH', 'PUT']);

      const collection = await testApp.http.delete('/api/tickets').expect(405);
      expect(collection.headers.allow.split(', ').sort()).toEqual(['GET', 'POST']);
    });
  });

  describe('body size (413)', () => {
    it('answers 413 for a body over 1 MiB', async () => {
      const body = buildTicketRequest({ description: 'x'.repeat(1024 * 1024) });
      const response = await testApp.http.post('/api/tickets').send(body).expect(413);
      expectErrorShape(response.body, 413, 'Payload Too Large', '/api/tickets');
      expect(response.body.message).toBe('Request body is larger than 1048576 bytes');
    });
  });
});
