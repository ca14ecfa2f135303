import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest, createTicket as createTicketThrough } from '../support/ticket-factory.js';

const ISO_UTC_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('Tickets API', () => {
  const testApp = useTestApp();

  async function create(overrides = {}) {
    return (await createTicketThrough(testApp.http, overrides)).body;
  }

  describe('POST /api/tickets', () => {
    it('answers 201 with the ticket, its generated id and server timestamps', async () => {
      const body = buildTicketRequest({ assignedTo: 'desk-1' });
      const response = await testApp.http
        .post('/api/tickets')
        .send(body)
        .expect(201)
        .expect('Content-Type', /application\/json/);

      expect(Object.keys(response.body)).toEqual([
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
      expect(response.body).toMatchObject({ ...body, resolvedAt: null });
      expect(typeof response.body.id).toBe('number');
      expect(response.body.createdAt).toMatch(ISO_UTC_MILLIS);
      expect(response.body.updatedAt).toBe(response.body.createdAt);
    });

    it('stores assignedTo as null when not given, and keeps an empty string as one', async () => {
      expect((await create({ assignedTo: undefined })).assignedTo).toBeNull();
      expect((await create({ assignedTo: '' })).assignedTo).toBe('');
    });

    it('leaves resolvedAt null for a ticket created RESOLVED', async () => {
      expect((await create({ status: 'RESOLVED' })).resolvedAt).toBeNull();
    });

    it('ignores id, timestamps and unknown fields sent by the client', async () => {
      const ticket = await create({ id: 424242, createdAt: '2000-01-01T00:00:00Z', resolvedAt: '2000-01-01T00:00:00Z', extra: 1 });
      expect(ticket.id).not.toBe(424242);
      expect(ticket.createdAt).not.toContain('2000');
      expect(ticket.resolvedAt).toBeNull();
      expect(ticket).not.toHaveProperty('extra');
    });

    it('accepts a description of exactly 2000 characters and titles of 255 code points', async () => {
      const ticket = await create({ description: 'd'.repeat(2000), title: '😀'.repeat(255) });
      const stored = await testApp.http.get(`/api/tickets/${ticket.id}`).expect(200);
      expect(stored.body.description).toHaveLength(2000);
      expect(stored.body.title).toBe('😀'.repeat(255));
    });

    it('accepts application/json with a charset parameter', async () => {
      await testApp.http
        .post('/api/tickets')
        .set('Content-Type', 'application/json; charset=UTF-8')
        .send(JSON.stringify(buildTicketRequest()))
        .expect(201);
    });
  });

  describe('GET /api/tickets/{id}', () => {
    it('answers 200 with the stored ticket', async () => {
      const ticket = await create();
      const response = await testApp.http
        .get(`/api/tickets/${ticket.id}`)
        .expect(200)
        .expect('Content-Type', /application\/json/);
      expect(response.body).toEqual(ticket);
    });

    it('answers each of many concurrent reads (read together in batches) with its own ticket, or 404', async () => {
      const tickets = await Promise.all(Array.from({ length: 12 }, (_, i) => create({ title: `batched read ${i}` })));
      const ids = [...tickets.map((ticket) => ticket.id), 987654321, ...tickets.map((ticket) => ticket.id).reverse()];
      const responses = await Promise.all(ids.map((id) => testApp.http.get(`/api/tickets/${id}`)));
      const byId = new Map(tickets.map((ticket) => [ticket.id, ticket]));
      expect(responses.map((response) => [response.status, response.status === 200 ? response.body : null])).toEqual(
        ids.map((id) => (byId.has(id) ? [200, byId.get(id)] : [404, null])),
      );
    });
  });

  describe('PUT /api/tickets/{id}', () => {
    it('replaces every client field, keeps id and createdAt, and advances updatedAt', async () => {
      const ticket = await create({ assignedTo: 'someone' });
      const replacement = buildTicketRequest({ title: 'New title', status: 'IN_PROGRESS', priority: 'LOW', assignedTo: undefined });
      const response = await testApp.http.put(`/api/tickets/${ticket.id}`).send(replacement).expect(200);

      expect(response.body).toMatchObject({
        ...replacement,
        id: ticket.id,
        createdAt: ticket.createdAt,
        assignedTo: null,
        resolvedAt: null,
      });
      expect(Date.parse(response.body.updatedAt)).toBeGreaterThan(Date.parse(ticket.updatedAt));
      expect((await testApp.http.get(`/api/tickets/${ticket.id}`)).body).toEqual(response.body);
    });

    it('advances updatedAt even when nothing changed', async () => {
      const body = buildTicketRequest();
      const ticket = (await testApp.http.post('/api/tickets').send(body).expect(201)).body;
      const first = (await testApp.http.put(`/api/tickets/${ticket.id}`).send(body).expect(200)).body;
      const second = (await testApp.http.put(`/api/tickets/${ticket.id}`).send(body).expect(200)).body;
      expect(Date.parse(first.updatedAt)).toBeGreaterThan(Date.parse(ticket.updatedAt));
      expect(Date.parse(second.updatedAt)).toBeGreaterThan(Date.parse(first.updatedAt));
    });

    it.each(['RESOLVED', 'CLOSED'])('sets resolvedAt when the status becomes %s, and never changes it afterwards', async (status) => {
      const ticket = await create();
      const resolved = (await testApp.http.put(`/api/tickets/${ticket.id}`).send(buildTicketRequest({ status })).expect(200)).body;
      expect(resolved.resolvedAt).toMatch(ISO_UTC_MILLIS);
      expect(resolved.resolvedAt).toBe(resolved.updatedAt);

      const closed = (
        await testApp.http
          .put(`/api/tickets/${ticket.id}`)
          .send(buildTicketRequest({ status: 'CLOSED' }))
          .expect(200)
      ).body;
      const reopened = (
        await testApp.http
          .put(`/api/tickets/${ticket.id}`)
          .send(buildTicketRequest({ status: 'IN_PROGRESS' }))
          .expect(200)
      ).body;
      expect(closed.resolvedAt).toBe(resolved.resolvedAt);
      expect(reopened.resolvedAt).toBe(resolved.resolvedAt);
    });

    it('allows any status to follow any other (no workflow check by default)', async () => {
      const ticket = await create({ status: 'OPEN' });
      await testApp.http
        .put(`/api/tickets/${ticket.id}`)
        .send(buildTicketRequest({ status: 'CLOSED' }))
        .expect(200);
      await testApp.http
        .put(`/api/tickets/${ticket.id}`)
        .send(buildTicketRequest({ status: 'OPEN' }))
        .expect(200);
    });
  });

  describe('DELETE /api/tickets/{id}', () => {
    it('answers 204 with an empty body and removes the ticket', async () => {
      const ticket = await create();
      const response = await testApp.http.delete(`/api/tickets/${ticket.id}`).expect(204);
      expect(response.text).toBe('');
      await testApp.http.get(`/api/tickets/${ticket.id}`).expect(404);
    });
  });

  describe('missing ticket', () => {
    it.each([
      ['GET', (id: number) => testApp.http.get(`/api/tickets/${id}`)],
      ['PUT', (id: number) => testApp.http.put(`/api/tickets/${id}`).send(buildTicketRequest())],
      ['DELETE', (id: number) => testApp.http.delete(`/api/tickets/${id}`)],
    ])('%s answers 404 with "Ticket not found with id: <id>"', async (_method, send) => {
      const response = await send(987654321)
        .expect(404)
        .expect('Content-Type', /application\/json/);
      expect(response.body).toEqual({
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/),
        status: 404,
        error: 'Not Found',
        message: 'Ticket not found with id: 987654321',
        path: '/api/tickets/987654321',
      });
      expect(Object.keys(response.body)).toEqual(['timestamp', 'status', 'error', 'message', 'path']);
    });
  });

  describe('GET /api/tickets', () => {
    it('lists every ticket in ascending id order when no filter is given', async () => {
      const a = await create();
      const b = await create();
      const response = await testApp.http.get('/api/tickets').expect(200);
      const ids = response.body.map((t: { id: number }) => t.id);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    });

    it('lists each ticket exactly as GET by id serves it, key order and timestamps included', async () => {
      const created = await create({ assignedTo: 'desk-2' });
      const resolved = (
        await testApp.http
          .put(`/api/tickets/${created.id}`)
          .send(buildTicketRequest({ status: 'RESOLVED' }))
          .expect(200)
      ).body;
      const one = await testApp.http.get(`/api/tickets/${created.id}`).expect(200);
      const list = await testApp.http.get('/api/tickets').expect(200);
      const listed = list.body.find((t: { id: number }) => t.id === created.id);
      expect(JSON.stringify(listed)).toBe(one.text);
      expect(listed.resolvedAt).toBe(resolved.resolvedAt);
    });

    it('filters by status', async () => {
      const waiting = await create({ status: 'WAITING_ON_CUSTOMER' });
      const response = await testApp.http.get('/api/tickets?status=WAITING_ON_CUSTOMER').expect(200);
      expect(response.body.length).toBeGreaterThan(0);
      expect(response.body.every((t: { status: string }) => t.status === 'WAITING_ON_CUSTOMER')).toBe(true);
      expect(response.body.map((t: { id: number }) => t.id)).toContain(waiting.id);
    });

    it('filters by requesterEmail, whole address, case-insensitively', async () => {
      const local = `Case.Mix-${Date.now()}`;
      const mine = await create({ requesterEmail: `${local}@Example.com` });
      await create({ requesterEmail: `${local}@example.com.evil` });
      const response = await testApp.http.get(`/api/tickets?requesterEmail=${local.toLowerCase()}@EXAMPLE.com`).expect(200);
      expect(response.body.map((t: { id: number }) => t.id)).toEqual([mine.id]);
    });

    it('applies only status when both filters are given', async () => {
      const email = `both-${Date.now()}@example.com`;
      const open = await create({ requesterEmail: email, status: 'OPEN' });
      const other = await create({ status: 'OPEN' });
      const closed = await create({ requesterEmail: email, status: 'CLOSED' });
      const ids = (await testApp.http.get(`/api/tickets?status=OPEN&requesterEmail=${email}`).expect(200)).body.map(
        (t: { id: number }) => t.id,
      );
      expect(ids).toEqual(expect.arrayContaining([open.id, other.id]));
      expect(ids).not.toContain(closed.id);
    });

    it('answers an empty array when nothing matches', async () => {
      const response = await testApp.http.get('/api/tickets?requesterEmail=nobody@nowhere.example').expect(200);
      expect(response.body).toEqual([]);
    });

    it('treats an empty status as absent', async () => {
      const email = `empty-${Date.now()}@example.com`;
      const ticket = await create({ requesterEmail: email });
      const response = await testApp.http.get(`/api/tickets?status=&requesterEmail=${email}`).expect(200);
      expect(response.body.map((t: { id: number }) => t.id)).toEqual([ticket.id]);
    });
  });
});
