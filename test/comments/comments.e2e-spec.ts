import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { OutboxWriter } from '../../src/outbox/outbox.writer.js';
import { EventConsumer } from '../support/event-consumer.js';
import { expectProblem } from '../support/problem-json.js';
import { expectSpringError } from '../support/spring-error.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest, createTicket as createTicketThrough } from '../support/ticket-factory.js';

type Json = Record<string, any>;

const ISO_UTC_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('Comments', () => {
  const testApp = useTestApp();
  let v1Queue: EventConsumer;
  let everything: EventConsumer;

  beforeAll(async () => {
    v1Queue = await EventConsumer.start();
    everything = await EventConsumer.bound('ticket.#');
  });

  afterAll(async () => {
    await everything.stop();
    await v1Queue.stop();
  });

  const http = () => testApp.http;
  const createTicket = async () => (await createTicketThrough(http())).body;
  const comment = (ticketId: number, body: unknown, prefix = '/api/tickets') =>
    http()
      .post(`${prefix}/${ticketId}/comments`)
      .send(body as object);

  it('answers 201 with the comment and its Location; visibility defaults to PUBLIC, author to null', async () => {
    const ticket = await createTicket();
    const response = await comment(ticket.id, { body: 'Rebooted the router.' }).expect(201);
    expect(Object.keys(response.body)).toEqual(['id', 'ticketId', 'body', 'author', 'visibility', 'createdAt']);
    expect(response.body).toEqual({
      id: expect.any(Number),
      ticketId: ticket.id,
      body: 'Rebooted the router.',
      author: null,
      visibility: 'PUBLIC',
      createdAt: expect.stringMatching(ISO_UTC_MILLIS),
    });
    expect(response.headers.location).toBe(`/api/tickets/${ticket.id}/comments/${response.body.id}`);
    expect((await http().get(response.headers.location).expect(200)).body).toEqual(response.body);

    const internal = await comment(
      ticket.id,
      { body: 'Call the vendor', author: 'desk-2', visibility: 'INTERNAL' },
      '/api/v2/tickets',
    ).expect(201);
    expect(internal.body).toMatchObject({ author: 'desk-2', visibility: 'INTERNAL' });
    expect(internal.headers.location).toBe(`/api/v2/tickets/${ticket.id}/comments/${internal.body.id}`);
  });

  it('lists oldest first, paged with limit/cursor (v1 array and Link, v2 envelope)', async () => {
    const ticket = await createTicket();
    const added = [];
    for (let i = 0; i < 5; i++) added.push((await comment(ticket.id, { body: `note ${i}` }).expect(201)).body);
    expect((await http().get(`/api/tickets/${ticket.id}/comments`).expect(200)).body).toEqual(added);

    const pages: Json[][] = [];
    let next: string | undefined = `/api/tickets/${ticket.id}/comments?limit=2`;
    while (next) {
      const page: { body: Json[]; headers: Record<string, string> } = await http().get(next).expect(200);
      pages.push(page.body);
      next = page.headers.link ? /^<([^>]+)>; rel="next"$/.exec(page.headers.link)![1] : undefined;
    }
    expect(pages).toEqual([added.slice(0, 2), added.slice(2, 4), added.slice(4)]);

    const v2 = (await http().get(`/api/v2/tickets/${ticket.id}/comments?limit=4`).expect(200)).body;
    expect(v2).toEqual({ items: added.slice(0, 4), nextCursor: expect.any(String) });
    const rest = (await http().get(`/api/v2/tickets/${ticket.id}/comments`).query({ limit: 4, cursor: v2.nextCursor }).expect(200)).body;
    expect(rest).toEqual({ items: added.slice(4), nextCursor: null });
    expect(
      (
        await http()
          .get(`/api/v2/tickets/${(await createTicket()).id}/comments`)
          .expect(200)
      ).body,
    ).toEqual({ items: [], nextCursor: null });
  });

  it('answers 400 in both shapes with the same codes: body missing, blank or too long; author too long; visibility unknown', async () => {
    const ticket = await createTicket();
    const path = `/api/tickets/${ticket.id}/comments`;
    const v1 = expectSpringError(
      asHttpResponse(await comment(ticket.id, { body: '  ', author: 'a'.repeat(256), visibility: 'public' })),
      400,
      path,
    );
    expect(v1.message).toBe("Validation failed for object='commentRequest'. Error count: 3");
    expect(v1.errors.map((e: Json) => [e.field, e.code])).toEqual([
      ['body', 'NotBlank'],
      ['author', 'Size'],
      ['visibility', 'typeMismatch'],
    ]);
    expect(v1.errors[0].codes).toEqual(['NotBlank.commentRequest.body', 'NotBlank.body', 'NotBlank.java.lang.String', 'NotBlank']);
    expect(v1.errors[0].defaultMessage).toBe('Body is required');

    const missing = expectSpringError(asHttpResponse(await comment(ticket.id, {})), 400);
    expect(missing.errors.map((e: Json) => [e.field, e.code])).toEqual([['body', 'NotBlank']]);
    const tooLong = expectSpringError(asHttpResponse(await comment(ticket.id, { body: 'x'.repeat(10_001) })), 400);
    expect(tooLong.errors.map((e: Json) => [e.field, e.code, e.arguments.slice(1)])).toEqual([['body', 'Size', [10_000, 0]]]);
    await comment(ticket.id, { body: '😀'.repeat(10_000) }).expect(201);

    const v2 = expectProblem(
      asHttpResponse(await comment(ticket.id, { body: 7 }, '/api/v2/tickets')),
      400,
      `/api/v2/tickets/${ticket.id}/comments`,
    );
    expect(v2.errors.map((e: Json) => [e.field, e.code])).toEqual([['body', 'typeMismatch']]);
    expectSpringError(asHttpResponse(await comment(ticket.id, [])), 400);
    expectSpringError(asHttpResponse(await http().post(path).set('Content-Type', 'text/plain').send('hello')), 415);
    expect((await http().get(path).expect(200)).body).toHaveLength(1);
  });

  it('answers 404 with the ticket message for a missing ticket (add, list), and for a missing comment', async () => {
    const v1 = expectSpringError(asHttpResponse(await comment(987654321, { body: 'x' })), 404, '/api/tickets/987654321/comments');
    expect(v1.message).toBe('Ticket not found with id: 987654321');
    expect(expectSpringError(asHttpResponse(await http().get('/api/tickets/987654321/comments')), 404).message).toBe(
      'Ticket not found with id: 987654321',
    );
    expect(expectProblem(asHttpResponse(await http().get('/api/v2/tickets/987654321/comments')), 404).detail).toBe(
      'Ticket not found with id: 987654321',
    );
    const ticket = await createTicket();
    expect(expectSpringError(asHttpResponse(await http().get(`/api/tickets/${ticket.id}/comments/987654321`)), 404).message).toBe(
      'Comment not found with id: 987654321',
    );
    expectSpringError(asHttpResponse(await http().get('/api/tickets/abc/comments')), 400);
  });

  it('records a COMMENTED history entry and publishes COMMENT_ADDED on ticket.comment.added, never on the v1 queue', async () => {
    const ticket = await createTicket();
    const added = (await comment(ticket.id, { body: 'Waiting for the part', author: 'desk-2' }).expect(201)).body;
    const history = (await http().get(`/api/tickets/${ticket.id}/history`).expect(200)).body;
    expect(history.map((e: Json) => e.action)).toEqual(['CREATED', 'COMMENTED']);
    expect(history[1]).toMatchObject({ actor: null, changes: { comment: { from: null, to: added.id } } });

    await everything.waitFor(() => everything.forTicket(ticket.id).length === 2);
    const delivery = everything.forTicket(ticket.id)[1];
    const event = JSON.parse(delivery.content.toString('utf8'));
    expect(Object.keys(event)).toEqual(['eventId', 'eventType', 'occurredAt', 'ticketId', 'comment']);
    expect(event).toEqual({
      eventId: expect.any(String),
      eventType: 'COMMENT_ADDED',
      occurredAt: expect.stringMatching(ISO_UTC_MILLIS),
      ticketId: ticket.id,
      comment: added,
    });
    expect(delivery.fields.routingKey).toBe('ticket.comment.added');
    expect(delivery.properties).toMatchObject({
      type: 'COMMENT_ADDED',
      messageId: event.eventId,
      deliveryMode: 2,
      contentType: 'application/json',
    });

    const marker = await createTicket();
    await v1Queue.waitFor(() => v1Queue.forTicket(marker.id).length === 1);
    expect(v1Queue.typesFor(ticket.id)).toEqual(['CREATED']);
  });

  it('keeps the ticket events in order across kinds and routing keys: CREATED, COMMENT_ADDED, UPDATED, DELETED', async () => {
    const ticket = await createTicket();
    await comment(ticket.id, { body: 'first' }).expect(201);
    await http().put(`/api/tickets/${ticket.id}`).send(buildTicketRequest()).expect(200);
    await http().delete(`/api/tickets/${ticket.id}`).expect(204);
    await everything.waitFor(() => everything.forTicket(ticket.id).length === 4);
    expect(everything.typesFor(ticket.id)).toEqual(['CREATED', 'COMMENT_ADDED', 'UPDATED', 'DELETED']);
  });

  it('leaves neither comment nor history entry when the transaction fails', async () => {
    const ticket = await createTicket();
    const record = jest.spyOn(testApp.app.get(OutboxWriter), 'record').mockRejectedValueOnce(new Error('outbox insert failed'));
    try {
      await comment(ticket.id, { body: 'lost' }).expect(500);
    } finally {
      record.mockRestore();
    }
    expect((await http().get(`/api/tickets/${ticket.id}/comments`).expect(200)).body).toEqual([]);
    expect((await http().get(`/api/tickets/${ticket.id}/history`).expect(200)).body.map((e: Json) => e.action)).toEqual(['CREATED']);
  });

  it('goes with its ticket: a delete removes the comments', async () => {
    const ticket = await createTicket();
    await comment(ticket.id, { body: 'bye' }).expect(201);
    await http().delete(`/api/tickets/${ticket.id}`).expect(204);
    const rows = await testApp.app.get(DataSource).query('SELECT COUNT(*) AS n FROM ticket_comments WHERE ticket_id = ?', [ticket.id]);
    expect(Number(rows[0].n)).toBe(0);
    await comment(ticket.id, { body: 'too late' }).expect(404);
  });
});
