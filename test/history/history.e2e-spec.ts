import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { OutboxWriter } from '../../src/outbox/outbox.writer.js';
import { expectProblem } from '../support/problem-json.js';
import { expectSpringError } from '../support/spring-error.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

type Json = Record<string, any>;

const CLIENT_FIELDS = [
  'title',
  'description',
  'status',
  'priority',
  'requesterEmail',
  'assignedTo',
  'createdAt',
  'updatedAt',
  'resolvedAt',
];

/** The diff a history entry must hold: every field whose served value differs, from before to after. */
function diff(before: Json | null, after: Json): Json {
  const changes: Json = {};
  for (const field of CLIENT_FIELDS) {
    const from = before?.[field] ?? null;
    if (from !== after[field]) changes[field] = { from, to: after[field] };
  }
  return changes;
}

describe('Ticket history (audit trail)', () => {
  const testApp = useTestApp();
  const http = () => testApp.http;
  const history = async (id: number, query = '') => (await http().get(`/api/tickets/${id}/history${query}`).expect(200)).body as Json[];

  it('records one entry per write, each equal to the diff of that write, oldest first', async () => {
    const created = (
      await http()
        .post('/api/tickets')
        .send(buildTicketRequest({ assignedTo: undefined }))
        .expect(201)
    ).body;
    const put = (
      await http()
        .put(`/api/tickets/${created.id}`)
        .send(buildTicketRequest({ requesterEmail: created.requesterEmail, status: 'RESOLVED', assignedTo: 'desk-2' }))
        .expect(200)
    ).body;
    const patched = (
      await http()
        .patch(`/api/tickets/${created.id}`)
        .set('Content-Type', 'application/merge-patch+json')
        .send({ assignedTo: null, priority: 'LOW' })
        .expect(200)
    ).body;
    const unchanged = (
      await http()
        .put(`/api/tickets/${created.id}`)
        .send({ ...patched })
        .expect(200)
    ).body;

    const entries = await history(created.id);
    expect(entries.map((e) => e.action)).toEqual(['CREATED', 'UPDATED', 'UPDATED', 'UPDATED']);
    expect(entries.map((e) => e.changes)).toEqual([diff(null, created), diff(created, put), diff(put, patched), diff(patched, unchanged)]);
    expect(entries[1].changes.resolvedAt).toEqual({ from: null, to: put.resolvedAt });
    expect(Object.keys(entries[3].changes)).toEqual(['updatedAt']);
    expect(entries[0].changes).not.toHaveProperty('assignedTo');
    for (const entry of entries) {
      expect(Object.keys(entry)).toEqual(['id', 'ticketId', 'occurredAt', 'actor', 'action', 'changes']);
      expect(entry).toMatchObject({
        ticketId: created.id,
        actor: null,
        occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
    }
    expect(entries.map((e) => e.id)).toEqual([...entries.map((e) => e.id)].sort((a, b) => a - b));
  });

  it('pages with limit and cursor (v1: Link header; v2: an envelope with nextCursor, 50 by default)', async () => {
    const { id } = (await http().post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    for (let i = 0; i < 4; i++)
      await http()
        .patch(`/api/tickets/${id}`)
        .set('Content-Type', 'application/json')
        .send({ title: `t${i}` })
        .expect(200);
    const all = await history(id);
    expect(all).toHaveLength(5);

    const first = await http().get(`/api/tickets/${id}/history?limit=2`).expect(200);
    expect(first.body).toEqual(all.slice(0, 2));
    const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.link)![1];
    expect(next).toMatch(new RegExp(`^/api/tickets/${id}/history\\?limit=2&cursor=`));
    const second = await http().get(next).expect(200);
    expect(second.body).toEqual(all.slice(2, 4));
    const third = await http()
      .get(/^<([^>]+)>/.exec(second.headers.link)![1])
      .expect(200);
    expect(third.body).toEqual(all.slice(4));
    expect(third.headers.link).toBeUndefined();

    const v2 = (await http().get(`/api/v2/tickets/${id}/history`).expect(200)).body;
    expect(v2).toEqual({ items: all, nextCursor: null });
    const v2First = (await http().get(`/api/v2/tickets/${id}/history?limit=3`).expect(200)).body;
    expect(v2First.items).toEqual(all.slice(0, 3));
    const v2Second = (await http().get(`/api/v2/tickets/${id}/history`).query({ limit: 3, cursor: v2First.nextCursor }).expect(200)).body;
    expect(v2Second).toEqual({ items: all.slice(3), nextCursor: null });
  });

  it("answers 400 for a bad limit or cursor, or a cursor of another ticket, in each version's shape", async () => {
    const a = (await http().post('/api/tickets').send(buildTicketRequest()).expect(201)).body.id;
    const b = (await http().post('/api/tickets').send(buildTicketRequest()).expect(201)).body.id;
    await http().put(`/api/tickets/${a}`).send(buildTicketRequest()).expect(200);
    const cursor = (await http().get(`/api/v2/tickets/${a}/history?limit=1`).expect(200)).body.nextCursor;

    const v1 = expectSpringError(asHttpResponse(await http().get(`/api/tickets/${a}/history?limit=0`)), 400, `/api/tickets/${a}/history`);
    expect(v1.errors.map((e: Json) => [e.field, e.code])).toEqual([['limit', 'Range']]);
    const other = expectSpringError(asHttpResponse(await http().get(`/api/tickets/${b}/history?limit=1&cursor=${cursor}`)), 400);
    expect(other.errors.map((e: Json) => e.code)).toEqual(['InvalidCursor']);
    const withoutLimit = expectSpringError(asHttpResponse(await http().get(`/api/tickets/${a}/history?cursor=${cursor}`)), 400);
    expect(withoutLimit.errors.map((e: Json) => e.code)).toEqual(['InvalidCursor']);
    const v2 = expectProblem(
      asHttpResponse(await http().get(`/api/v2/tickets/${a}/history?limit=x&since=1`)),
      400,
      `/api/v2/tickets/${a}/history`,
    );
    expect(v2.errors.map((e: Json) => [e.field, e.code])).toEqual([
      ['since', 'UnknownParameter'],
      ['limit', 'typeMismatch'],
    ]);
    expectProblem(asHttpResponse(await http().get(`/api/v2/tickets/${a}/history?limit=1&cursor=garbage`)), 400);
  });

  it('answers 404 with the ticket message for a missing ticket, and 400 for a bad id', async () => {
    expect(expectSpringError(asHttpResponse(await http().get('/api/tickets/987654321/history')), 404).message).toBe(
      'Ticket not found with id: 987654321',
    );
    expect(expectProblem(asHttpResponse(await http().get('/api/v2/tickets/987654321/history')), 404).detail).toBe(
      'Ticket not found with id: 987654321',
    );
    expectSpringError(asHttpResponse(await http().get('/api/tickets/abc/history')), 400);
  });

  it('leaves no history row without its write when the transaction fails (create and update)', async () => {
    const db = testApp.app.get(DataSource);
    const rows = async () => Number((await db.query('SELECT COUNT(*) AS n FROM ticket_history'))[0].n);
    const ticket = (await http().post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    const before = await rows();
    const record = jest.spyOn(testApp.app.get(OutboxWriter), 'record').mockRejectedValue(new Error('outbox insert failed'));
    try {
      await http().post('/api/tickets').send(buildTicketRequest()).expect(500);
      await http()
        .put(`/api/tickets/${ticket.id}`)
        .send(buildTicketRequest({ title: 'never' }))
        .expect(500);
    } finally {
      record.mockRestore();
    }
    expect(await rows()).toBe(before);
    expect((await history(ticket.id)).map((e) => e.action)).toEqual(['CREATED']);
  });

  it('goes with its ticket: a delete removes the history', async () => {
    const db = testApp.app.get(DataSource);
    const { id } = (await http().post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    await http().put(`/api/tickets/${id}`).send(buildTicketRequest()).expect(200);
    await http().delete(`/api/tickets/${id}`).expect(204);
    expect(Number((await db.query('SELECT COUNT(*) AS n FROM ticket_history WHERE ticket_id = ?', [id]))[0].n)).toBe(0);
    await http().get(`/api/tickets/${id}/history`).expect(404);
  });
});
