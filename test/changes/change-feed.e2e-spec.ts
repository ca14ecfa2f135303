import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { decodeChangeCursor, decodeChangePosition, encodeChangeCursor } from '../../src/changes/change-cursor.js';
import { ChangeSequencer } from '../../src/changes/change-sequencer.js';
import { FeedWalker, readFeed, SseClient } from '../support/change-feed.js';
import { listen } from '../support/http-client.js';
import { expectProblem } from '../support/problem-json.js';
import { createTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { waitUntil } from '../support/waits.js';

type Json = Record<string, any>;

describe('Change feed', () => {
  let app: INestApplication;
  let baseUrl: string;

  beforeAll(async () => {
    app = await createTestApp({ env: { CHANGES_SSE_HEARTBEAT_MS: '300' } });
    baseUrl = `http://127.0.0.1:${await listen(app)}`;
  });

  afterAll(async () => {
    await app?.close();
  });

  const send = async (method: string, path: string, body?: object): Promise<{ status: number; body: Json }> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const post = async (path: string, body: object): Promise<Json> => {
    const response = await send('POST', path, body);
    expect(response.status).toBe(201);
    return response.body;
  };
  /** A walker from the end of the feed as it is now. */
  const fromNow = async (): Promise<FeedWalker> => {
    const walker = new FeedWalker(baseUrl);
    await walker.catchUp();
    return new FeedWalker(baseUrl, walker.cursor);
  };
  const raw = async (query: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl}/api/v2/changes${query}`, { headers });
    return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
  };

  it('gives every change once, each ticket in commit order, with tombstones for deletes and the event as published', async () => {
    const walker = await fromNow();
    const first = await post('/api/tickets', buildTicketRequest());
    const second = await post('/api/v2/tickets', buildTicketRequest());
    expect((await send('PUT', `/api/tickets/${first.id}`, buildTicketRequest({ status: 'IN_PROGRESS' }))).status).toBe(200);
    const comment = await post(`/api/tickets/${first.id}/comments`, { body: 'Rebooted the router.' });
    expect((await send('PATCH', `/api/v2/tickets/${second.id}`, { priority: 'LOW' })).status).toBe(200);
    expect((await send('DELETE', `/api/tickets/${first.id}`)).status).toBe(204);

    await walker.until(() => walker.forTicket(first.id).length === 4 && walker.forTicket(second.id).length === 2);
    const ours = walker.items.filter((item) => item.ticketId === first.id || item.ticketId === second.id);
    expect(new Set(ours.map((item) => item.eventId)).size).toBe(6);
    expect(walker.forTicket(first.id).map((item) => item.eventType)).toEqual(['CREATED', 'UPDATED', 'COMMENT_ADDED', 'DELETED']);
    expect(walker.forTicket(second.id).map((item) => item.eventType)).toEqual(['CREATED', 'UPDATED']);

    const [created, updated, commented, deleted] = walker.forTicket(first.id);
    expect(Object.keys(created)).toEqual(['cursor', 'eventId', 'eventType', 'occurredAt', 'ticketId', 'ticket', 'data']);
    // The feed's ticket carries its tags and custom fields; RabbitMQ's v1 key leaves them out.
    expect(created.ticket).toEqual({ ...first, tags: [], fields: {} });
    expect(updated.ticket).toMatchObject({ id: first.id, status: 'IN_PROGRESS' });
    expect(created.data).toEqual({
      eventId: created.eventId,
      eventType: 'CREATED',
      occurredAt: created.occurredAt,
      ticketId: first.id,
      ticket: { ...first, tags: [], fields: {} },
    });
    expect(commented.ticket).toBeNull();
    expect(commented.data.comment).toEqual(comment);
    expect(deleted.ticket).toBeNull();
    expect(deleted.data.ticket).toMatchObject({ id: first.id });
    expect(walker.items.at(-1)!.cursor).toBe(walker.cursor);
  });

  it('pages with limit, reports the end of the stream, and hands back the same cursor at the end', async () => {
    const walker = await fromNow();
    const start = walker.cursor;
    const tickets: Json[] = [];
    for (let i = 0; i < 3; i++) tickets.push(await post('/api/tickets', buildTicketRequest()));
    await walker.until(() => tickets.every((ticket) => walker.forTicket(ticket.id).length === 1));

    const firstPage = await readFeed(baseUrl, { after: start, limit: 2 });
    expect(firstPage.items).toHaveLength(2);
    expect(firstPage.endOfStream).toBe(false);
    expect(firstPage.nextCursor).toBe(firstPage.items[1].cursor);
    const rest = new FeedWalker(baseUrl, firstPage.nextCursor);
    await rest.catchUp(2);
    expect([...firstPage.items, ...rest.items].map((item) => item.eventId)).toEqual(walker.items.map((item) => item.eventId));
    expect(await readFeed(baseUrl, { after: rest.cursor })).toEqual({ items: [], nextCursor: rest.cursor, endOfStream: true });
  });

  it('starts a first read at the first change numbered at or after since', async () => {
    const walker = await fromNow();
    const ticket = await post('/api/tickets', buildTicketRequest());
    await walker.until(() => walker.forTicket(ticket.id).length === 1);
    const change = walker.forTicket(ticket.id)[0];

    const page = await readFeed(baseUrl, { since: change.occurredAt, limit: 1000 });
    expect(page.items.map((item) => item.eventId)).toContain(change.eventId);
    const later = await readFeed(baseUrl, { since: new Date(Date.parse(change.occurredAt) + 60_000).toISOString() });
    expect(later.items).toEqual([]);
  });

  it('numbers a change when it commits: one that commits after a later id comes after the cursor already handed out', async () => {
    const walker = await fromNow();
    const ticket = await post('/api/tickets', buildTicketRequest());
    await walker.until(() => walker.forTicket(ticket.id).length === 1);
    // A write's transaction that has inserted its change (taking the lower id) and not committed yet.
    const held = app.get(DataSource).createQueryRunner();
    await held.connect();
    const late = { eventId: randomUUID(), eventType: 'UPDATED', occurredAt: new Date().toISOString(), ticketId: ticket.id, ticket };
    let handedOut: string;
    let other: Json;
    try {
      await held.startTransaction();
      await held.query(
        "INSERT INTO change_log (event_id, event_type, ticket_id, occurred_at, payload, relay_status) VALUES (?, ?, ?, ?, ?, 'published')",
        [late.eventId, late.eventType, late.ticketId, new Date(late.occurredAt), JSON.stringify(late)],
      );
      other = await post('/api/tickets', buildTicketRequest());
      await walker.until(() => walker.forTicket(other.id).length === 1);
      handedOut = walker.cursor!;
      await held.commitTransaction();
    } finally {
      if (held.isTransactionActive) await held.rollbackTransaction();
      await held.release();
    }

    await walker.until(() => walker.has([late.eventId]), 20_000);
    const lateItem = walker.items.find((item) => item.eventId === late.eventId)!;
    expect(decodeChangeCursor(lateItem.cursor)!).toBeGreaterThan(decodeChangeCursor(handedOut)!);
    // since counts by numbering, not by occurredAt: the change that occurred later but was numbered first is not skipped.
    const fromSince = await readFeed(baseUrl, { since: late.occurredAt, limit: 1000 });
    expect(fromSince.items.map((item) => item.eventId)).toEqual(
      expect.arrayContaining([late.eventId, walker.forTicket(other.id)[0].eventId]),
    );
  });

  it('answers 400 problem+json for a malformed or foreign cursor and bad parameters', async () => {
    const queries = [
      '?after=not-a-cursor',
      '?after=',
      `?after=&since=${new Date().toISOString()}`,
      '?after=eyJxIjoiY2hhbmdlcyIsImsiOlsxXX0.xxxxxxxxxxxxxxxx',
      '?limit=0',
      '?limit=1001',
      '?waitSeconds=31',
      '?since=yesterday',
      '?colour=red',
    ];
    for (const query of queries) expectProblem(await raw(query), 400);

    const list = await send('GET', '/api/v2/tickets?limit=1');
    if (list.body.nextCursor) expectProblem(await raw(`?after=${list.body.nextCursor}`), 400);
    const { nextCursor } = await readFeed(baseUrl, {});
    const both = expectProblem(await raw(`?after=${nextCursor}&since=2026-01-01T00:00:00Z`), 400);
    expect(both.errors[0]).toMatchObject({ field: 'since', code: 'InvalidCursor' });
    expectProblem(await raw('', { accept: 'text/event-stream', 'last-event-id': 'garbage' }), 400);
    // An empty cursor is not "no cursor": it would restart a consumer that lost its cursor from the oldest change.
    const empty = expectProblem(await raw('?after=&waitSeconds=1'), 400);
    expect(empty.errors).toEqual([expect.objectContaining({ field: 'after', code: 'InvalidCursor', rejectedValue: '' })]);
    expectProblem(await raw('?after=', { accept: 'text/event-stream' }), 400);
  });

  it('resumes a stream from Last-Event-ID, which overrides the after or since of the URL EventSource reconnects to', async () => {
    const walker = await fromNow();
    const start = walker.cursor!;
    const first = await post('/api/tickets', buildTicketRequest());
    const second = await post('/api/tickets', buildTicketRequest());
    await walker.until(() => walker.forTicket(second.id).length === 1);
    const resumeAfter = walker.forTicket(first.id)[0].cursor as string;
    for (const query of [`?after=${start}`, `?since=${new Date(Date.now() - 3_600_000).toISOString()}`]) {
      const stream = new SseClient(`${baseUrl}`, { 'last-event-id': resumeAfter }, query);
      try {
        await stream.waitFor(() => stream.events().some((message) => message.id === walker.forTicket(second.id)[0].cursor));
        expect(decodeChangeCursor(stream.events()[0].id!)).toBe(decodeChangeCursor(resumeAfter)! + 1);
      } finally {
        stream.close();
      }
    }
  });

  it('long-poll answers when a change arrives, and at the end of the wait when none does', async () => {
    const walker = await fromNow();
    expect(await readFeed(baseUrl, { after: walker.cursor, waitSeconds: 1 })).toEqual({
      items: [],
      nextCursor: walker.cursor,
      endOfStream: true,
    });

    const waiting = readFeed(baseUrl, { after: walker.cursor, waitSeconds: 30 });
    const ticket = await post('/api/tickets', buildTicketRequest());
    const page = await waiting;
    expect(page.items.length).toBeGreaterThan(0);
    const rest = new FeedWalker(baseUrl, page.nextCursor);
    await rest.until(() => [...page.items, ...rest.items].some((item) => item.ticketId === ticket.id));
  });

  it('reads a cursor a little ahead of what this database numbered as no change yet, and one that cannot be reached as 410', async () => {
    const walker = await fromNow();
    const end = decodeChangePosition(walker.cursor!)!;
    // A cursor another node handed out one change later, which this one has not numbered yet.
    const ahead = encodeChangeCursor(end.seq + 1, Date.now());
    expect(await readFeed(baseUrl, { after: ahead })).toEqual({ items: [], nextCursor: ahead, endOfStream: true });

    const waiting = readFeed(baseUrl, { after: ahead, waitSeconds: 30 });
    const first = await post('/api/tickets', buildTicketRequest());
    const second = await post('/api/tickets', buildTicketRequest());
    await walker.until(() => walker.forTicket(second.id).length === 1);
    const page = await waiting;
    const rest = new FeedWalker(baseUrl, page.nextCursor);
    await rest.until(() => [...page.items, ...rest.items].some((item) => item.ticketId === second.id));
    // Everything after the cursor's change, nothing at or before it.
    const expected = walker.items.filter((item) => decodeChangeCursor(item.cursor)! > end.seq + 1).map((item) => item.eventId);
    expect([...page.items, ...rest.items].map((item) => item.eventId)).toEqual(expected);
    expect(walker.forTicket(first.id)).toHaveLength(1);

    // Numbered too long ago for any node to be still behind it, or a cursor that does not say when: not this feed's.
    const last = decodeChangeCursor(rest.cursor!)!;
    for (const cursor of [encodeChangeCursor(last + 1, Date.now() - 10 * 60_000), encodeChangeCursor(last + 1)]) {
      expect(expectProblem(await raw(`?after=${cursor}`), 410).type).toMatch(/\/resync-required$/);
      expectProblem(await raw('', { accept: 'text/event-stream', 'last-event-id': cursor }), 410);
    }
  });

  it('streams Server-Sent Events resumable with Last-Event-ID, with heartbeats when idle', async () => {
    const walker = await fromNow();
    const stream = new SseClient(baseUrl, { 'last-event-id': walker.cursor! });
    await stream.waitFor(() => stream.response !== undefined);
    expect(stream.response!.statusCode).toBe(200);
    expect(stream.response!.headers['content-type']).toMatch(/^text\/event-stream/);
    await stream.waitFor(() => stream.messages.some((message) => message.comment === 'heartbeat'));

    const first = await post('/api/tickets', buildTicketRequest());
    const ofTicket = (client: SseClient, id: number) => client.events().filter((event) => JSON.parse(event.data!).ticketId === id);
    await stream.waitFor(() => ofTicket(stream, first.id).length === 1);
    const [event] = ofTicket(stream, first.id);
    expect(event.event).toBe('CREATED');
    expect(JSON.parse(event.data!)).toMatchObject({ cursor: event.id, eventType: 'CREATED', ticketId: first.id, ticket: first });
    stream.close();

    const second = await post('/api/tickets', buildTicketRequest());
    const resumed = new SseClient(baseUrl, { 'last-event-id': event.id! });
    await resumed.waitFor(() => ofTicket(resumed, second.id).length === 1);
    expect(ofTicket(resumed, first.id)).toEqual([]);
    resumed.close();
  });

  it('numbers changes only under the lease: a replica that lost it numbers nothing, and the next owner continues the numbers', async () => {
    const sequencer = app.get(ChangeSequencer);
    const db = app.get(DataSource);
    await waitUntil(() => sequencer.isSequencer(), 20_000);
    const walker = await fromNow();
    const before = decodeChangeCursor(walker.cursor!)!;
    const [{ epoch }] = await db.query('SELECT epoch FROM change_feed_sequencer WHERE id = 1');

    await db.query(
      "UPDATE change_feed_sequencer SET owner = 'elsewhere', epoch = epoch + 1, expires_at = NOW(3) + INTERVAL 1 HOUR WHERE id = 1",
    );
    const ticket = await post('/api/tickets', buildTicketRequest());
    await waitUntil(() => !sequencer.isSequencer(), 20_000);
    const [unnumbered] = await db.query('SELECT seq FROM change_log WHERE ticket_id = ?', [ticket.id]);
    expect(unnumbered.seq).toBeNull();
    expect(await readFeed(baseUrl, { after: walker.cursor })).toMatchObject({ items: [], endOfStream: true });

    await db.query('UPDATE change_feed_sequencer SET expires_at = NOW(3) - INTERVAL 1 SECOND WHERE id = 1');
    await walker.until(() => walker.forTicket(ticket.id).length === 1);
    expect(sequencer.isSequencer()).toBe(true);
    expect(decodeChangeCursor(walker.forTicket(ticket.id)[0].cursor)).toBe(before + 1);
    const [after] = await db.query('SELECT owner, epoch FROM change_feed_sequencer WHERE id = 1');
    expect({ owner: after.owner, epoch: Number(after.epoch) }).toEqual({ owner: sequencer.owner, epoch: Number(epoch) + 2 });
  });

  it('deletes changes past retention and answers 410 resync-required for a cursor before them', async () => {
    const sequencer = app.get(ChangeSequencer);
    const walker = await fromNow();
    const old = walker.cursor!;
    const expired = await post('/api/tickets', buildTicketRequest());
    const kept = await post('/api/tickets', buildTicketRequest());
    await walker.until(() => walker.forTicket(kept.id).length === 1);
    const [change] = walker.forTicket(expired.id);

    const db = app.get(DataSource);
    await db.query('UPDATE change_log SET sequenced_at = NOW(3) - INTERVAL 8 DAY WHERE seq <= ?', [decodeChangeCursor(change.cursor)]);
    // An enabled webhook endpoint and a mail notifier that moved within a day keep the changes they have not reached;
    // those other suites left in the worker's database do not run.
    await db.query('UPDATE webhooks SET enabled = 0');
    await db.query('DELETE FROM mail_notifier');
    // Nor does retention delete a change before one RabbitMQ does not have yet: wait for the relay to publish them.
    const unpublished = async () =>
      Number(
        (
          await db.query("SELECT COUNT(*) AS n FROM change_log WHERE seq <= ? AND relay_status = 'pending'", [
            decodeChangeCursor(change.cursor),
          ])
        )[0].n,
      );
    await waitUntil(async () => (await unpublished()) === 0, 20_000);
    await waitUntil(() => sequencer.isSequencer(), 20_000);
    expect(await sequencer.prune()).toBe(true);

    const problem = expectProblem(await raw(`?after=${old}`), 410);
    expect(problem.type).toMatch(/\/resync-required$/);
    expectProblem(await raw(`?since=${new Date(Date.now() - 9 * 86_400_000).toISOString()}`), 410);
    expectProblem(await raw('', { accept: 'text/event-stream', 'last-event-id': old }), 410);

    expect((await readFeed(baseUrl, { after: change.cursor })).items.map((item) => item.ticketId)).toContain(kept.id);
    const oldest = await readFeed(baseUrl, {});
    expect(oldest.items.map((item) => item.eventId)).not.toContain(change.eventId);
    expect(oldest.items.map((item) => item.ticketId)).toContain(kept.id);
  });

  it('ends a long-poll and a stream at once on shutdown', async () => {
    const other = await createTestApp();
    const otherUrl = `http://127.0.0.1:${await listen(other)}`;
    const tail = new FeedWalker(otherUrl);
    await tail.catchUp();
    const waiting = readFeed(otherUrl, { after: tail.cursor, waitSeconds: 30 });
    const stream = new SseClient(otherUrl, { 'last-event-id': tail.cursor! });
    await stream.waitFor(() => stream.response !== undefined);
    await other.close();
    expect((await waiting).items).toEqual([]);
    await stream.waitFor(() => stream.ended);
  });

  it('shuts down while a stream client has stopped reading', async () => {
    const other = await createTestApp();
    const port = await listen(other);
    const walker = await fromNow();
    // Enough changes (100 of ~100 kB) that the stream's writes fill the socket buffers of a client that reads nothing.
    const ticket = await post('/api/tickets', buildTicketRequest());
    const filler = 'x'.repeat(100_000);
    const dataSource = other.get(DataSource);
    for (let i = 0; i < 100; i++) {
      const event = { eventId: randomUUID(), eventType: 'UPDATED', occurredAt: new Date().toISOString(), ticketId: ticket.id, filler };
      await dataSource.query(
        "INSERT INTO change_log (event_id, event_type, ticket_id, occurred_at, payload, relay_status) VALUES (?, ?, ?, ?, ?, 'published')",
        [event.eventId, event.eventType, event.ticketId, new Date(event.occurredAt), JSON.stringify(event)],
      );
    }
    const stalled = createConnection({ port, host: '127.0.0.1' });
    let received = 0;
    stalled.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > 0) stalled.pause();
    });
    stalled.on('error', () => undefined);
    await walker.until(() => walker.items.filter((item) => item.data.filler !== undefined).length >= 100);
    stalled.write(
      `GET /api/v2/changes?since=${new Date(Date.now() - 3_600_000).toISOString()} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n`,
    );
    await waitUntil(() => received > 0, 20_000);
    // The stream is cut off at shutdown rather than held until the client reads or the HTTP drain gives up on it.
    await other.close();
    expect((other.getHttpServer() as { listening: boolean }).listening).toBe(false);
    stalled.destroy();
  });
});
