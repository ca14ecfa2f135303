import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { OutboxWriter } from '../../src/outbox/outbox.writer.js';
import { EventConsumer } from '../support/event-consumer.js';
import { expectProblem } from '../support/problem-json.js';
import { expectSpringError } from '../support/spring-error.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

const MERGE_PATCH = 'application/merge-patch+json';

describe('PATCH /api/tickets/{id} (JSON merge patch)', () => {
  const testApp = useTestApp();
  let consumer: EventConsumer;

  beforeAll(async () => {
    consumer = await EventConsumer.start();
  });

  afterAll(async () => {
    await consumer.stop();
  });

  const create = async (overrides = {}) => (await testApp.http.post('/api/tickets').send(buildTicketRequest(overrides)).expect(201)).body;
  const patch = (path: string, body: unknown, type = MERGE_PATCH) =>
    testApp.http.patch(path).set('Content-Type', type).send(JSON.stringify(body));

  it('replaces the fields present, keeps the fields absent, and answers the ticket with its new ETag', async () => {
    const ticket = await create({ assignedTo: 'desk-1' });
    const response = await patch(`/api/tickets/${ticket.id}`, { priority: 'CRITICAL', title: 'Printer on fire' }).expect(200);
    expect(response.body).toEqual({
      ...ticket,
      priority: 'CRITICAL',
      title: 'Printer on fire',
      updatedAt: expect.any(String),
    });
    expect(Date.parse(response.body.updatedAt)).toBeGreaterThan(Date.parse(ticket.updatedAt));
    expect(response.headers.etag).toBe(`"${ticket.id}-${Date.parse(response.body.updatedAt)}"`);
    expect((await testApp.http.get(`/api/tickets/${ticket.id}`).expect(200)).body).toEqual(response.body);
  });

  it('takes plain application/json too, and clears assignedTo with null (an empty string stays an empty string)', async () => {
    const ticket = await create({ assignedTo: 'desk-1' });
    expect(
      (await patch(`/api/tickets/${ticket.id}`, { assignedTo: null }, 'application/json; charset=UTF-8').expect(200)).body.assignedTo,
    ).toBeNull();
    expect((await patch(`/api/tickets/${ticket.id}`, { assignedTo: '' }).expect(200)).body.assignedTo).toBe('');
  });

  it('applies the PUT rules: resolvedAt set once by RESOLVED, kept by a later reopen; an empty patch still advances updatedAt', async () => {
    const ticket = await create();
    const resolved = (await patch(`/api/tickets/${ticket.id}`, { status: 'RESOLVED' }).expect(200)).body;
    expect(resolved.resolvedAt).toBe(resolved.updatedAt);
    const reopened = (await patch(`/api/tickets/${ticket.id}`, { status: 'OPEN' }).expect(200)).body;
    expect(reopened.resolvedAt).toBe(resolved.resolvedAt);
    const touched = (await patch(`/api/tickets/${ticket.id}`, {}).expect(200)).body;
    expect({ ...touched, updatedAt: reopened.updatedAt }).toEqual(reopened);
    expect(Date.parse(touched.updatedAt)).toBeGreaterThan(Date.parse(reopened.updatedAt));
  });

  it('ignores fields the server owns', async () => {
    const ticket = await create();
    const body = (
      await patch(`/api/tickets/${ticket.id}`, {
        id: 999,
        createdAt: '2000-01-01T00:00:00.000Z',
        resolvedAt: '2000-01-01T00:00:00.000Z',
      }).expect(200)
    ).body;
    expect(body).toMatchObject({ id: ticket.id, createdAt: ticket.createdAt, resolvedAt: null });
  });

  it('answers 400 with NotNull/NotBlank for null or blank on a required field, all at once, and changes nothing', async () => {
    const ticket = await create();
    const response = await patch(`/api/tickets/${ticket.id}`, {
      title: null,
      description: '  ',
      status: null,
      priority: 'urgent',
      requesterEmail: 'nope',
    });
    const body = expectSpringError(asHttpResponse(response), 400, `/api/tickets/${ticket.id}`);
    expect(body.errors.map((e: { field: string; code: string }) => [e.field, e.code])).toEqual([
      ['title', 'NotBlank'],
      ['description', 'NotBlank'],
      ['status', 'NotNull'],
      ['priority', 'typeMismatch'],
      ['requesterEmail', 'Email'],
    ]);
    expect(body.errors[0]).toMatchObject({ defaultMessage: 'Title is required', rejectedValue: null, objectName: 'ticketPatch' });
    await patch(`/api/tickets/${ticket.id}`, { description: 'x'.repeat(2001) }).expect(400);
    expect((await testApp.http.get(`/api/tickets/${ticket.id}`).expect(200)).body).toEqual(ticket);
  });

  it('answers 400 for a body that is not an object, 415 for another content type, 404 for a missing ticket', async () => {
    const ticket = await create();
    for (const body of [[], 'text', 42, null]) {
      expectSpringError(asHttpResponse(await patch(`/api/tickets/${ticket.id}`, body)), 400, `/api/tickets/${ticket.id}`);
    }
    expectSpringError(asHttpResponse(await patch(`/api/tickets/${ticket.id}`, { title: 'x' }, 'text/plain')), 415);
    expectSpringError(asHttpResponse(await patch(`/api/tickets/${ticket.id}`, { title: 'x' }, 'application/xml')), 415);
    const missing = expectSpringError(asHttpResponse(await patch('/api/tickets/999999999', { title: 'x' }).expect(404)), 404);
    expect(missing.message).toBe('Ticket not found with id: 999999999');
  });

  it('honours If-Match: 412 for a stale version, 200 for the current one', async () => {
    const ticket = await create();
    const etag = (await testApp.http.get(`/api/tickets/${ticket.id}`).expect(200)).headers.etag;
    await patch(`/api/tickets/${ticket.id}`, { title: 'first' }).set('If-Match', etag).expect(200);
    const stale = await patch(`/api/tickets/${ticket.id}`, { title: 'second' }).set('If-Match', etag);
    expect(expectSpringError(asHttpResponse(stale), 412).message).toMatch(/has been changed/);
    expect((await testApp.http.get(`/api/tickets/${ticket.id}`).expect(200)).body.title).toBe('first');
  });

  it('publishes UPDATED with the same body as a PUT would, to the v1 binding', async () => {
    const ticket = await create();
    const patched = (await patch(`/api/tickets/${ticket.id}`, { status: 'CLOSED' }).expect(200)).body;
    await consumer.waitFor(() => consumer.forTicket(ticket.id).length === 2);
    const event = JSON.parse(consumer.forTicket(ticket.id)[1].content.toString('utf8'));
    expect(Object.keys(event)).toEqual(['eventId', 'eventType', 'occurredAt', 'ticketId', 'ticket']);
    expect(event).toMatchObject({ eventType: 'UPDATED', ticketId: ticket.id, ticket: patched });
    expect(consumer.forTicket(ticket.id)[1].fields.routingKey).toBe('ticket.routing.key');
  });

  it('serialises concurrent patches of one ticket with the row lock: each lands, resolvedAt is set once', async () => {
    const ticket = await create();
    const results = await Promise.all(
      ['IN_PROGRESS', 'RESOLVED', 'CLOSED', 'RESOLVED', 'WAITING_ON_CUSTOMER'].map((status) =>
        patch(`/api/tickets/${ticket.id}`, { status }).expect(200),
      ),
    );
    const resolvedAts = new Set(results.map((r) => r.body.resolvedAt).filter((value) => value !== null));
    expect(resolvedAts.size).toBe(1);
    const stamps = results.map((r) => Date.parse(r.body.updatedAt));
    expect(new Set(stamps).size).toBe(stamps.length);
  });

  it('rolls back when the event cannot be recorded: no change, no history entry', async () => {
    const ticket = await create();
    const history = async () =>
      (await testApp.app.get(DataSource).query('SELECT COUNT(*) AS n FROM ticket_history WHERE ticket_id = ?', [ticket.id]))[0].n;
    const before = Number(await history());
    const record = jest.spyOn(testApp.app.get(OutboxWriter), 'record').mockRejectedValueOnce(new Error('outbox insert failed'));
    try {
      await patch(`/api/tickets/${ticket.id}`, { title: 'never stored' }).expect(500);
    } finally {
      record.mockRestore();
    }
    expect((await testApp.http.get(`/api/tickets/${ticket.id}`).expect(200)).body).toEqual(ticket);
    expect(Number(await history())).toBe(before);
  });

  it('is listed in the Allow header of a 405 on the ticket path', async () => {
    const response = await testApp.http.post('/api/tickets/1').send(buildTicketRequest()).expect(405);
    expect(response.headers.allow.split(', ').sort()).toEqual(['DELETE', 'GET', 'PATCH', 'PUT']);
  });

  describe('in v2', () => {
    it('patches the same way and answers a validation failure as problem+json with the same codes', async () => {
      const ticket = await create();
      expect((await patch(`/api/v2/tickets/${ticket.id}`, { priority: 'LOW' }).expect(200)).body).toMatchObject({
        id: ticket.id,
        priority: 'LOW',
      });
      const problem = expectProblem(
        asHttpResponse(await patch(`/api/v2/tickets/${ticket.id}`, { requesterEmail: null })),
        400,
        `/api/v2/tickets/${ticket.id}`,
      );
      expect(problem.errors).toEqual([
        { field: 'requesterEmail', code: 'NotBlank', message: 'Requester email is required', rejectedValue: null },
      ]);
      expectProblem(asHttpResponse(await patch(`/api/v2/tickets/${ticket.id}`, {}, 'text/plain')), 415);
    });
  });
});
