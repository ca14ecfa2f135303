import type { Response } from 'supertest';
import { EventConsumer } from '../support/event-consumer.js';
import { expectProblem } from '../support/problem-json.js';
import { expectSpringError } from '../support/spring-error.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { type TestAppHandle, useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

type Json = Record<string, any>;

const V1 = '/api/tickets';
const V2 = '/api/v2/tickets';
const STATUSES = ['OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED'];
const MERGE_PATCH = 'application/merge-patch+json';

/** The requests of one app: create, PUT a whole body, PATCH some fields, read the transitions and history. */
function ticketsOf(testApp: TestAppHandle) {
  const http = () => testApp.http;
  return {
    create: async (status: string, collection = V1): Promise<Json> =>
      (await http().post(collection).send(buildTicketRequest({ status })).expect(201)).body,
    put: (path: string, ticket: Json, changes: Json) =>
      http()
        .put(path)
        .send(buildTicketRequest({ ...ticket, ...changes })),
    patch: (path: string, changes: Json) => http().patch(path).set('Content-Type', MERGE_PATCH).send(changes),
    get: async (path: string): Promise<Json> => (await http().get(path).expect(200)).body,
    historyActions: async (id: number): Promise<string[]> =>
      (await http().get(`${V1}/${id}/history`).expect(200)).body.map((e: Json) => e.action),
  };
}

/** A client's body for PUT: the ticket's own fields, which the server ignores where it owns them. */
const clientFields = ({ title, description, priority, requesterEmail, assignedTo }: Json) => ({
  title,
  description,
  priority,
  requesterEmail,
  assignedTo,
});

describe('Ticket workflow: TICKET_WORKFLOW=strict', () => {
  const testApp = useTestApp({ env: { TICKET_WORKFLOW: 'strict' } });
  const tickets = ticketsOf(testApp);
  let consumer: EventConsumer;

  beforeAll(async () => {
    consumer = await EventConsumer.start();
  });

  afterAll(async () => {
    await consumer.stop();
  });

  /**
   * Nothing of a rejected move was written: the row is as created, and an allowed update made after it (the
   * marker) is the ticket's only UPDATED event and history entry, made from the row as created.
   */
  async function expectNothingWritten(created: Json): Promise<void> {
    const path = `${V1}/${created.id}`;
    // Read through v1, which shows neither a v2 body's participants, its tags, its custom fields, its links nor its SLA summary.
    const { ccEmails: _participants, tags: _tags, fields: _fields, links: _links, ...v1Fields } = created;
    expect(await tickets.get(path)).toEqual(v1Fields);
    const marked = (await tickets.patch(path, { assignedTo: 'marker' }).expect(200)).body;
    await consumer.waitFor(() => consumer.typesFor(created.id).includes('UPDATED'));
    expect(consumer.typesFor(created.id)).toEqual(['CREATED', 'UPDATED']);
    const [, markerEvent] = consumer.forTicket(created.id).map((message) => JSON.parse(message.content.toString('utf8')));
    expect(markerEvent.ticket).toEqual(marked);
    expect(marked).toEqual({ ...v1Fields, assignedTo: 'marker', updatedAt: expect.any(String) });
    expect(await tickets.historyActions(created.id)).toEqual(['CREATED', 'UPDATED']);
  }

  describe('a move the workflow does not allow', () => {
    const rejectedBy: Array<[string, (path: string, ticket: Json) => Promise<Response>]> = [
      ['PUT', (path, ticket) => tickets.put(path, clientFields(ticket), { status: 'CLOSED', title: 'Closed too early' })],
      ['PATCH', (path) => tickets.patch(path, { status: 'CLOSED', title: 'Closed too early' })],
    ];

    it.each(rejectedBy)(
      'v1 %s: 409 "Invalid status transition from OPEN to CLOSED" in the Spring error body; nothing written, no event, no history',
      async (_, send) => {
        const created = await tickets.create('OPEN');
        const path = `${V1}/${created.id}`;
        const body = expectSpringError(asHttpResponse(await send(path, created)), 409, path);
        expect(body).toMatchObject({ error: 'Conflict', message: 'Invalid status transition from OPEN to CLOSED' });
        expect(Object.keys(body)).toEqual(['timestamp', 'status', 'error', 'message', 'path']);
        await expectNothingWritten(created);
      },
    );

    it.each(rejectedBy)(
      'v2 %s: 409 invalid-transition problem naming from, to and the allowed statuses; nothing written, no event, no history',
      async (_, send) => {
        const created = await tickets.create('OPEN', V2);
        const path = `${V2}/${created.id}`;
        const problem = expectProblem(asHttpResponse(await send(path, created)), 409, path);
        expect(problem).toEqual({
          type: expect.stringMatching(/\/invalid-transition$/),
          title: 'Invalid status transition',
          status: 409,
          detail: 'Invalid status transition from OPEN to CLOSED',
          instance: path,
          from: 'OPEN',
          to: 'CLOSED',
          allowed: ['OPEN', 'IN_PROGRESS'],
        });
        await expectNothingWritten(created);
      },
    );

    it('is judged against the status the ticket has when the update holds its row: of two racing moves that exclude each other, one wins', async () => {
      // From IN_PROGRESS both RESOLVED and WAITING_ON_CUSTOMER are allowed, but neither leads to the other.
      for (let round = 0; round < 5; round++) {
        const created = await tickets.create('IN_PROGRESS');
        const path = `${V1}/${created.id}`;
        const moves = ['RESOLVED', 'WAITING_ON_CUSTOMER'];
        const answers = await Promise.all(moves.map((status) => tickets.patch(path, { status })));
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
        const [won, lost] = answers[0].status === 200 ? moves : [...moves].reverse();
        expect(answers.map((answer) => answer.body.message ?? answer.body.status)).toContain(
          `Invalid status transition from ${won} to ${lost}`,
        );
        expect((await tickets.get(path)).status).toBe(won);
      }
    });
  });

  it("allows every move of the spec's table, by PUT and by PATCH, in v1 and v2", async () => {
    const walk = ['OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'IN_PROGRESS', 'RESOLVED', 'IN_PROGRESS', 'RESOLVED', 'CLOSED'];
    const byPut = await tickets.create('OPEN');
    for (const status of walk.slice(1)) {
      expect((await tickets.put(`${V1}/${byPut.id}`, clientFields(byPut), { status }).expect(200)).body.status).toBe(status);
    }
    for (const [from, to] of [
      ['IN_PROGRESS', 'CLOSED'],
      ['WAITING_ON_CUSTOMER', 'CLOSED'],
      ['RESOLVED', 'CLOSED'],
    ]) {
      const ticket = await tickets.create(from, V2);
      expect((await tickets.patch(`${V2}/${ticket.id}`, { status: to }).expect(200)).body).toMatchObject({
        status: to,
        resolvedAt: expect.any(String),
      });
    }
  });

  it('allows keeping the status, also a CLOSED one, by PUT and by PATCH', async () => {
    const open = await tickets.create('OPEN');
    expect(
      (await tickets.put(`${V1}/${open.id}`, clientFields(open), { status: 'OPEN', title: 'Renamed' }).expect(200)).body,
    ).toMatchObject({ status: 'OPEN', title: 'Renamed' });
    const closed = await tickets.create('CLOSED', V2);
    expect((await tickets.patch(`${V2}/${closed.id}`, { status: 'CLOSED', priority: 'LOW' }).expect(200)).body).toMatchObject({
      status: 'CLOSED',
      priority: 'LOW',
    });
    expect((await tickets.patch(`${V2}/${closed.id}`, { assignedTo: null }).expect(200)).body).toMatchObject({
      status: 'CLOSED',
      assignedTo: null,
    });
  });

  it.each(STATUSES)('creates a ticket with the status %s, in v1 and v2', async (status) => {
    expect((await tickets.create(status)).status).toBe(status);
    expect((await tickets.create(status, V2)).status).toBe(status);
  });

  describe('GET …/{id}/transitions', () => {
    it.each([V1, V2])('%s: the status and the moves the table allows from it, the status itself included', async (collection) => {
      const inProgress = await tickets.create('IN_PROGRESS', collection);
      const response = await testApp.http
        .get(`${collection}/${inProgress.id}/transitions`)
        .expect(200)
        .expect('Content-Type', /^application\/json/);
      expect(response.text).toBe('{"status":"IN_PROGRESS","allowed":["IN_PROGRESS","WAITING_ON_CUSTOMER","RESOLVED","CLOSED"]}');
      const closed = await tickets.create('CLOSED', collection);
      expect(await tickets.get(`${collection}/${closed.id}/transitions`)).toEqual({ status: 'CLOSED', allowed: ['CLOSED'] });
      const open = await tickets.create('OPEN', collection);
      expect(await tickets.get(`${collection}/${open.id}/transitions`)).toEqual({ status: 'OPEN', allowed: ['OPEN', 'IN_PROGRESS'] });
    });

    it('answers 404 for an unknown ticket in each version’s shape', async () => {
      const v1 = expectSpringError(
        asHttpResponse(await testApp.http.get(`${V1}/999999999/transitions`)),
        404,
        `${V1}/999999999/transitions`,
      );
      expect(v1.message).toBe('Ticket not found with id: 999999999');
      const v2 = expectProblem(asHttpResponse(await testApp.http.get(`${V2}/999999999/transitions`)), 404, `${V2}/999999999/transitions`);
      expect(v2).toMatchObject({ type: 'about:blank', detail: 'Ticket not found with id: 999999999' });
    });
  });
});

describe('Ticket workflow: open (the default)', () => {
  const testApp = useTestApp();
  const tickets = ticketsOf(testApp);

  it('lets any status follow any other, by PUT and PATCH, in v1 and v2', async () => {
    for (const collection of [V1, V2]) {
      const ticket = await tickets.create('OPEN', collection);
      const path = `${collection}/${ticket.id}`;
      const closed = (await tickets.put(path, clientFields(ticket), { status: 'CLOSED' }).expect(200)).body;
      expect(closed).toMatchObject({ status: 'CLOSED', resolvedAt: closed.updatedAt });
      expect((await tickets.patch(path, { status: 'OPEN' }).expect(200)).body).toMatchObject({
        status: 'OPEN',
        resolvedAt: closed.resolvedAt,
      });
      expect((await tickets.patch(path, { status: 'WAITING_ON_CUSTOMER' }).expect(200)).body.status).toBe('WAITING_ON_CUSTOMER');
    }
  });

  it.each([V1, V2])('%s …/transitions: every status, whatever the current one', async (collection) => {
    for (const status of ['OPEN', 'CLOSED']) {
      const ticket = await tickets.create(status, collection);
      expect(await tickets.get(`${collection}/${ticket.id}/transitions`)).toEqual({ status, allowed: STATUSES });
    }
  });
});
