import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { IdempotencyService, PURGE_BATCH_SIZE, STARTED_TIMEOUT_MS } from '../../src/idempotency/idempotency.service.js';
import { OutboxWriter } from '../../src/outbox/outbox.writer.js';
import { EventConsumer } from '../support/event-consumer.js';
import { useOwnDatabase } from '../support/database.js';
import { expectProblem } from '../support/problem-json.js';
import { ServiceProcess } from '../support/service-process.js';
import { expectSpringError } from '../support/spring-error.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

type Json = Record<string, any>;

describe('Idempotency-Key', () => {
  const testApp = useTestApp();
  let consumer: EventConsumer;
  let everything: EventConsumer;

  beforeAll(async () => {
    consumer = await EventConsumer.start();
    everything = await EventConsumer.bound('ticket.#');
  });

  afterAll(async () => {
    await everything.stop();
    await consumer.stop();
  });

  const http = () => testApp.http;
  const db = () => testApp.app.get(DataSource);
  const key = () => `key-${randomUUID()}`;
  const ticketsOf = async (email: string) =>
    Number((await db().query('SELECT COUNT(*) AS n FROM tickets WHERE requester_email = ?', [email]))[0].n);
  /**
   * Waits for the ticket's `events` events, then for a later ticket's, so that an event published twice would be
   * in as well. (A later ticket's event alone proves nothing: another outbox partition can go out first.)
   */
  const settle = async (ticketId: number, events: number) => {
    await everything.waitFor(() => everything.forTicket(ticketId).length >= events);
    const marker = (await http().post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    await consumer.waitFor(() => consumer.forTicket(marker.id).length === 1);
    await everything.waitFor(() => everything.forTicket(marker.id).length === 1);
  };

  it('changes nothing without the header', async () => {
    const response = await http().post('/api/tickets').send(buildTicketRequest()).expect(201);
    expect(response.headers).not.toHaveProperty('idempotent-replayed');
  });

  it('replays the stored response byte for byte (status, body, Location, ETag) with Idempotent-Replayed: true; writes and publishes nothing', async () => {
    const k = key();
    const body = buildTicketRequest();
    const first = await http().post('/api/tickets').set('Idempotency-Key', k).send(body).expect(201);
    expect(first.headers).not.toHaveProperty('idempotent-replayed');
    const historyBefore = (await http().get(`/api/tickets/${first.body.id}/history`).expect(200)).body;

    // The same content with its keys in another order is the same request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const replay = await http().post('/api/tickets').set('Idempotency-Key', k).send(reordered).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(replay.headers.location).toBe(first.headers.location);
    expect(replay.headers.etag).toBe(first.headers.etag);
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);

    expect(await ticketsOf(String(body.requesterEmail))).toBe(1);
    expect((await http().get(`/api/tickets/${first.body.id}/history`).expect(200)).body).toEqual(historyBefore);
    await settle(first.body.id, 1);
    expect(consumer.typesFor(first.body.id)).toEqual(['CREATED']);
  });

  it("answers 422 for the same key with a different request (body, path or version), in each version's shape", async () => {
    const k = key();
    const first = await http().post('/api/tickets').set('Idempotency-Key', k).send(buildTicketRequest()).expect(201);
    const v1 = expectSpringError(
      asHttpResponse(await http().post('/api/tickets').set('Idempotency-Key', k).send(buildTicketRequest())),
      422,
      '/api/tickets',
    );
    expect(v1.message).toMatch(/different request/);
    expectProblem(
      asHttpResponse(await http().post('/api/v2/tickets').set('Idempotency-Key', k).send(buildTicketRequest())),
      422,
      '/api/v2/tickets',
    );
    const comment = await http().post(`/api/tickets/${first.body.id}/comments`).set('Idempotency-Key', k).send({ body: 'x' });
    expectSpringError(asHttpResponse(comment), 422);
  });

  it("answers 400 for an empty key or one longer than 255 characters, in each version's shape, and writes nothing", async () => {
    const body = buildTicketRequest();
    const empty = expectSpringError(
      asHttpResponse(await http().post('/api/tickets').set('Idempotency-Key', '').send(body)),
      400,
      '/api/tickets',
    );
    expect(empty.errors.map((e: Json) => [e.field, e.code])).toEqual([['Idempotency-Key', 'NotBlank']]);
    const long = expectProblem(
      asHttpResponse(await http().post('/api/v2/tickets').set('Idempotency-Key', 'k'.repeat(256)).send(body)),
      400,
    );
    expect(long.errors.map((e: Json) => [e.field, e.code])).toEqual([['Idempotency-Key', 'Size']]);
    await http().post('/api/tickets').set('Idempotency-Key', 'k'.repeat(255)).send(buildTicketRequest()).expect(201);
    expect(await ticketsOf(String(body.requesterEmail))).toBe(0);
  });

  it('stores no 4xx: a corrected retry with the same key runs', async () => {
    const k = key();
    await http()
      .post('/api/tickets')
      .set('Idempotency-Key', k)
      .send(buildTicketRequest({ title: '' }))
      .expect(400);
    await http().post('/api/tickets').set('Idempotency-Key', k).set('Content-Type', 'text/plain').send('x').expect(415);
    const fixed = await http().post('/api/tickets').set('Idempotency-Key', k).send(buildTicketRequest()).expect(201);
    expect(fixed.headers).not.toHaveProperty('idempotent-replayed');
    // A comment on a missing ticket (404) is not stored either.
    const c = key();
    await http().post('/api/tickets/987654321/comments').set('Idempotency-Key', c).send({ body: 'x' }).expect(404);
    await http().post(`/api/tickets/${fixed.body.id}/comments`).set('Idempotency-Key', c).send({ body: 'x' }).expect(201);
  });

  it('stores nothing when the write rolls back (5xx): the retry runs and writes once', async () => {
    const k = key();
    const body = buildTicketRequest();
    const record = jest.spyOn(testApp.app.get(OutboxWriter), 'record').mockRejectedValueOnce(new Error('outbox insert failed'));
    try {
      await http().post('/api/tickets').set('Idempotency-Key', k).send(body).expect(500);
    } finally {
      record.mockRestore();
    }
    expect(Number((await db().query('SELECT COUNT(*) AS n FROM idempotency_keys WHERE idem_key = ?', [k]))[0].n)).toBe(0);
    await http().post('/api/tickets').set('Idempotency-Key', k).send(body).expect(201);
    expect(await ticketsOf(String(body.requesterEmail))).toBe(1);
  });

  it('10 concurrent POSTs with one key: one ticket, one CREATED event, every other answer the replay or a 409', async () => {
    const k = key();
    const body = buildTicketRequest();
    const responses = await Promise.all(Array.from({ length: 10 }, () => http().post('/api/tickets').set('Idempotency-Key', k).send(body)));
    const created = responses.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(created).toHaveLength(1);
    for (const response of responses) {
      if (response.status === 201) expect(response.text).toBe(created[0].text);
      else
        expect({ status: response.status, problem: expectSpringError(asHttpResponse(response), 409).message }).toEqual({
          status: 409,
          problem: expect.stringMatching(/still being processed/),
        });
    }
    expect(await ticketsOf(String(body.requesterEmail))).toBe(1);
    await settle(created[0].body.id, 1);
    expect(consumer.typesFor(created[0].body.id)).toEqual(['CREATED']);
  });

  it('answers 409 while the first request with the key is still running', async () => {
    const k = key();
    const body = buildTicketRequest();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const writer = testApp.app.get(OutboxWriter);
    const original = writer.record.bind(writer);
    const record = jest.spyOn(writer, 'record').mockImplementationOnce(async (...args) => {
      entered();
      await gate;
      return original(...args);
    });
    try {
      const first = http()
        .post('/api/tickets')
        .set('Idempotency-Key', k)
        .send(body)
        .then((r) => r);
      await inside;
      const second = await http().post('/api/tickets').set('Idempotency-Key', k).send(body);
      expectSpringError(asHttpResponse(second), 409, '/api/tickets');
      release();
      expect((await first).status).toBe(201);
    } finally {
      release();
      record.mockRestore();
    }
    const replay = await http().post('/api/tickets').set('Idempotency-Key', k).send(body).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  describe('with a short database deadline', () => {
    const shortDeadline = useTestApp({ env: { DB_QUERY_TIMEOUT_MS: '1000' } });

    it('lets the retry of a request whose write ran past its deadline (503) and rolled back run, instead of answering 409', async () => {
      const k = key();
      const body = buildTicketRequest();
      const writer = shortDeadline.app.get(OutboxWriter);
      // The write outlives the deadline, then fails and rolls back, as a statement after the deadline does.
      const record = jest.spyOn(writer, 'record').mockImplementationOnce(async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        throw new Error('statement after the deadline');
      });
      try {
        await shortDeadline.http.post('/api/tickets').set('Idempotency-Key', k).send(body).expect(503);
      } finally {
        record.mockRestore();
      }
      const started = async () =>
        Number(
          (
            await shortDeadline.app
              .get(DataSource)
              .query("SELECT COUNT(*) AS n FROM idempotency_keys WHERE idem_key = ? AND state = 'started'", [k])
          )[0].n,
        );
      const deadline = Date.now() + 5_000;
      while ((await started()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const retry = await shortDeadline.http.post('/api/tickets').set('Idempotency-Key', k).send(body).expect(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(await ticketsOf(body.requesterEmail as string)).toBe(1);
    });
  });

  it('lets a retry run when the first request crashed and left its key started past the timeout', async () => {
    const k = key();
    const body = buildTicketRequest();
    const longAgo = new Date(Date.now() - STARTED_TIMEOUT_MS - 1_000);
    await db().query(
      `INSERT INTO idempotency_keys (scope, idem_key, request_hash, state, token, started_at, expires_at) VALUES ('', ?, 'x', 'started', ?, ?, ?)`,
      [k, randomUUID(), longAgo, new Date(Date.now() + 3_600_000)],
    );
    const response = await http().post('/api/tickets').set('Idempotency-Key', k).send(body).expect(201);
    expect(response.headers).not.toHaveProperty('idempotent-replayed');
    expect((await http().post('/api/tickets').set('Idempotency-Key', k).send(body).expect(201)).headers['idempotent-replayed']).toBe(
      'true',
    );
  });

  it('works on comments (v1 and v2): one comment, one COMMENT_ADDED, the replay with its Location', async () => {
    const ticket = (await http().post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    for (const prefix of ['/api/tickets', '/api/v2/tickets']) {
      const k = key();
      const path = `${prefix}/${ticket.id}/comments`;
      const first = await http()
        .post(path)
        .set('Idempotency-Key', k)
        .send({ body: `note via ${prefix}` })
        .expect(201);
      const replay = await http()
        .post(path)
        .set('Idempotency-Key', k)
        .send({ body: `note via ${prefix}` })
        .expect(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(first.text);
      expect(replay.headers.location).toBe(`${path}/${first.body.id}`);
    }
    expect((await http().get(`/api/tickets/${ticket.id}/comments`).expect(200)).body).toHaveLength(2);
    expect((await http().get(`/api/tickets/${ticket.id}/history`).expect(200)).body.map((e: Json) => e.action)).toEqual([
      'CREATED',
      'COMMENTED',
      'COMMENTED',
    ]);
    await settle(ticket.id, 3);
    expect(everything.typesFor(ticket.id)).toEqual(['CREATED', 'COMMENT_ADDED', 'COMMENT_ADDED']);
  });

  it('works on v2 creates, with the v2 Location', async () => {
    const k = key();
    const body = buildTicketRequest();
    const first = await http().post('/api/v2/tickets').set('Idempotency-Key', k).send(body).expect(201);
    const replay = await http().post('/api/v2/tickets').set('Idempotency-Key', k).send(body).expect(201);
    expect(replay.headers).toMatchObject({
      'idempotent-replayed': 'true',
      location: `/api/v2/tickets/${first.body.id}`,
      etag: first.headers.etag,
    });
  });

  it('works on PATCH (v1 and v2): the 200 replayed with its ETag, one UPDATED event each, 422 for another body, 409 while in flight', async () => {
    const ticket = (await http().post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    for (const [prefix, status] of [
      ['/api/tickets', 'IN_PROGRESS'],
      ['/api/v2/tickets', 'WAITING_ON_CUSTOMER'],
    ]) {
      const k = key();
      const path = `${prefix}/${ticket.id}`;
      const patch = () => http().patch(path).set('Idempotency-Key', k).set('Content-Type', 'application/merge-patch+json');
      const first = await patch().send({ status }).expect(200);
      expect(first.headers).not.toHaveProperty('idempotent-replayed');
      const replay = await patch().send({ status }).expect(200);
      expect(replay.headers).toMatchObject({ 'idempotent-replayed': 'true', etag: first.headers.etag });
      expect(replay.text).toBe(first.text);
      const other = asHttpResponse(await patch().send({ status: 'RESOLVED' }));
      if (prefix === '/api/tickets') expectSpringError(other, 422, path);
      else expectProblem(other, 422, path);
    }
    expect((await http().get(`/api/tickets/${ticket.id}/history`).expect(200)).body.map((e: Json) => e.action)).toEqual([
      'CREATED',
      'UPDATED',
      'UPDATED',
    ]);
    await settle(ticket.id, 3);
    expect(consumer.typesFor(ticket.id)).toEqual(['CREATED', 'UPDATED', 'UPDATED']);

    const k = key();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const writer = testApp.app.get(OutboxWriter);
    const original = writer.record.bind(writer);
    const record = jest.spyOn(writer, 'record').mockImplementationOnce(async (...args) => {
      entered();
      await gate;
      return original(...args);
    });
    try {
      const first = http()
        .patch(`/api/tickets/${ticket.id}`)
        .set('Idempotency-Key', k)
        .send({ priority: 'HIGH' })
        .then((r) => r);
      await inside;
      expectSpringError(
        asHttpResponse(await http().patch(`/api/tickets/${ticket.id}`).set('Idempotency-Key', k).send({ priority: 'HIGH' })),
        409,
      );
      release();
      expect((await first).status).toBe(200);
    } finally {
      release();
      record.mockRestore();
    }
  });

  it("leaves PUT and DELETE to HTTP's own idempotency: the key is neither stored nor replayed", async () => {
    const ticket = (await http().post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    const k = key();
    const first = await http().put(`/api/tickets/${ticket.id}`).set('Idempotency-Key', k).send(buildTicketRequest()).expect(200);
    const again = await http().put(`/api/tickets/${ticket.id}`).set('Idempotency-Key', k).send(buildTicketRequest()).expect(200);
    expect(again.headers).not.toHaveProperty('idempotent-replayed');
    expect(again.headers.etag).not.toBe(first.headers.etag);
    await http().delete(`/api/tickets/${ticket.id}`).set('Idempotency-Key', k).expect(204);
    await http().delete(`/api/tickets/${ticket.id}`).set('Idempotency-Key', k).expect(404);
    expect(Number((await db().query('SELECT COUNT(*) AS n FROM idempotency_keys WHERE idem_key = ?', [k]))[0].n)).toBe(0);
  });

  it('purges expired keys in batches; the key can then be used afresh', async () => {
    const service = testApp.app.get(IdempotencyService);
    const k = key();
    const body = buildTicketRequest();
    await http().post('/api/tickets').set('Idempotency-Key', k).send(body).expect(201);
    const expired = new Date(Date.now() - 1_000);
    const stale = Array.from({ length: PURGE_BATCH_SIZE + 5 }, (_, i) => [
      '',
      `stale-${randomUUID()}-${i}`,
      'x',
      'finished',
      randomUUID(),
      expired,
      expired,
    ]);
    await db().query('INSERT INTO idempotency_keys (scope, idem_key, request_hash, state, token, started_at, expires_at) VALUES ?', [
      stale,
    ]);
    await db().query('UPDATE idempotency_keys SET expires_at = ? WHERE idem_key = ?', [expired, k]);

    expect(await service.purgeExpired()).toBeGreaterThanOrEqual(PURGE_BATCH_SIZE + 6);
    expect(Number((await db().query('SELECT COUNT(*) AS n FROM idempotency_keys WHERE expires_at <= ?', [new Date()]))[0].n)).toBe(0);
    const again = await http().post('/api/tickets').set('Idempotency-Key', k).send(body).expect(201);
    expect(again.headers).not.toHaveProperty('idempotent-replayed');
    expect(await ticketsOf(String(body.requesterEmail))).toBe(2);
  });

  it('keeps keys IDEMPOTENCY_TTL_HOURS (24 by default)', async () => {
    const k = key();
    const before = Date.now();
    await http().post('/api/tickets').set('Idempotency-Key', k).send(buildTicketRequest()).expect(201);
    const [row] = await db().query('SELECT expires_at, state FROM idempotency_keys WHERE idem_key = ?', [k]);
    expect(row.state).toBe('finished');
    const ttl = new Date(row.expires_at).getTime() - before;
    expect(ttl).toBeGreaterThanOrEqual(24 * 3_600_000 - 1_000);
    expect(ttl).toBeLessThanOrEqual(24 * 3_600_000 + 60_000);
  });
});

// The killed service's leases would otherwise hold the worker's database's relay partitions for the next suite.
const restartDatabase = useOwnDatabase('idempotency_restart');

describe('Idempotency-Key across a restart', () => {
  it('replays after the service was killed and started again', async () => {
    const k = `key-${randomUUID()}`;
    const body = JSON.stringify(buildTicketRequest());
    const post = (url: string) =>
      fetch(`${url}/api/tickets`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': k }, body });
    const first = await ServiceProcess.start({ DB_DATABASE: restartDatabase });
    let created: Response;
    let createdText: string;
    try {
      created = await post(first.url);
      createdText = await created.text();
      expect(created.status).toBe(201);
    } finally {
      first.kill('SIGKILL');
      await first.exited;
    }
    const second = await ServiceProcess.start({ DB_DATABASE: restartDatabase });
    try {
      const replay = await post(second.url);
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.text()).toBe(createdText);
      expect(replay.headers.get('location')).toBe(created.headers.get('location'));
      expect(replay.headers.get('etag')).toBe(created.headers.get('etag'));
    } finally {
      await second.stop();
    }
  }, 60_000);
});
