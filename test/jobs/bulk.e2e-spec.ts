import { randomBytes, randomUUID } from 'node:crypto';
import { EventConsumer } from '../support/event-consumer.js';
import { connectToDatabase, seedTickets, useOwnDatabase } from '../support/database.js';
import { expectProblem } from '../support/problem-json.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { createTestApp, useTestApp } from '../support/test-app.js';
import { useTestIssuer } from '../support/test-issuer.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { waitUntil } from '../support/waits.js';
import { jobReads } from '../support/jobs.js';
import { JobLeaseLost, JobsRepository } from '../../src/jobs/jobs.repository.js';
import { TicketsService } from '../../src/tickets/tickets.service.js';
import { jest } from '@jest/globals';

type Json = Record<string, any>;

// Its own: 10,000 changes at a time would otherwise wait, after the suite, for the next suite's relay and sequencer on the worker's database.
const database = useOwnDatabase('bulk');
const address = () => `bulk-${randomBytes(4).toString('hex')}@example.com`;

/** Bulk changes as jobs (docs/api.md#bulk-changes), against the real servers. */
describe('Bulk changes', () => {
  const testApp = useTestApp({ env: { DB_DATABASE: database, JOBS_POLL_INTERVAL: '100ms', JOBS_LEASE_TTL: '2s' } });
  let consumer: EventConsumer;

  const create = async (overrides: Json = {}): Promise<number> =>
    (await testApp.http.post('/api/v2/tickets').send(buildTicketRequest(overrides)).expect(201)).body.id;
  const bulk = (body: Json) => testApp.http.post('/api/v2/tickets/bulk').send(body);
  const problem = async (request: PromiseLike<any>, status: number) => expectProblem(asHttpResponse(await request), status);
  // Pages of two: the results' cursor is walked too.
  const { job, finished, results } = jobReads(testApp, 2);

  beforeAll(async () => {
    consumer = await EventConsumer.bound('ticket.#');
  });
  afterAll(() => consumer.stop());

  it('changes each named ticket as its own PATCH would, comments on it, and says what became of each', async () => {
    const tickets = [await create({ status: 'OPEN' }), await create({ status: 'IN_PROGRESS' }), await create({ status: 'OPEN' })];
    const accepted = await bulk({
      ids: [tickets[0], 999_999_999, tickets[1], tickets[2]],
      patch: { status: 'RESOLVED', tags: { add: ['PRTG-night'] } },
      comment: { body: 'The alert cleared overnight.', visibility: 'INTERNAL' },
    }).expect(202);
    expect(accepted.headers.location).toBe(`/api/v2/jobs/${accepted.body.id}`);
    expect(accepted.body).toMatchObject({ kind: 'bulk', status: 'queued', total: null, done: 0, failed: 0, finishedAt: null });
    const done = await finished(accepted.body.id);
    expect(done).toMatchObject({ status: 'partially_succeeded', total: 4, done: 3, failed: 1 });
    expect(await results(accepted.body.id)).toEqual([
      { ticketId: tickets[0], outcome: 'succeeded', error: null },
      {
        ticketId: 999_999_999,
        outcome: 'failed',
        error: {
          type: 'about:blank',
          title: 'Not Found',
          status: 404,
          detail: 'Ticket not found with id: 999999999',
          instance: '/api/v2/tickets/999999999',
        },
      },
      { ticketId: tickets[1], outcome: 'succeeded', error: null },
      { ticketId: tickets[2], outcome: 'succeeded', error: null },
    ]);
    for (const id of tickets) {
      const body = (await testApp.http.get(`/api/v2/tickets/${id}`).expect(200)).body;
      expect([body.status, body.tags, typeof body.resolvedAt]).toEqual(['RESOLVED', ['prtg-night'], 'string']);
      const history = (await testApp.http.get(`/api/v2/tickets/${id}/history`).expect(200)).body.items as Json[];
      expect(history.map((entry) => entry.action)).toEqual(['CREATED', 'UPDATED', 'COMMENTED']);
      const comments = (await testApp.http.get(`/api/v2/tickets/${id}/comments`).expect(200)).body.items as Json[];
      expect(comments.map((item) => [item.body, item.visibility])).toEqual([['The alert cleared overnight.', 'INTERNAL']]);
    }
    // Each ticket's events in its order, as one by one: UPDATED on the v1 key, then COMMENT_ADDED.
    await consumer.waitFor(() => tickets.every((id) => consumer.typesFor(id).length >= 3));
    for (const id of tickets) expect(consumer.typesFor(id)).toEqual(['CREATED', 'UPDATED', 'COMMENT_ADDED']);
  });

  it('reads a filter for its matches when the job starts, and refuses what a single PATCH would refuse', async () => {
    const requester = address();
    const open = [await create({ requesterEmail: requester }), await create({ requesterEmail: requester })];
    const closed = await create({ requesterEmail: requester, status: 'CLOSED' });
    await create({ requesterEmail: address() });
    const accepted = await bulk({
      filter: { requesterEmail: requester, status: ['OPEN', 'CLOSED'] },
      patch: { priority: 'LOW', title: '' },
    }).expect(400);
    expect(accepted.body.errors.map((error: Json) => error.field)).toEqual(['patch.title']);
    const job = (
      await bulk({
        filter: { requesterEmail: requester, status: ['OPEN', 'CLOSED'] },
        patch: { priority: 'LOW', assignedTo: 'kim' },
      }).expect(202)
    ).body;
    expect(await finished(job.id)).toMatchObject({ status: 'succeeded', total: 3, done: 3, failed: 0 });
    expect((await results(job.id)).map((result) => result.ticketId)).toEqual([...open, closed]);
    for (const id of [...open, closed]) {
      expect((await testApp.http.get(`/api/v2/tickets/${id}`).expect(200)).body).toMatchObject({ priority: 'LOW', assignedTo: 'kim' });
    }
    // A merged ticket refuses its change, as it refuses a PATCH.
    const [target, source] = [await create(), await create()];
    await testApp.http
      .post(`/api/v2/tickets/${target}/merge`)
      .send({ sources: [source] })
      .expect(200);
    const refused = (await bulk({ ids: [source], patch: { priority: 'HIGH' } }).expect(202)).body;
    expect(await finished(refused.id)).toMatchObject({ status: 'failed', total: 1, done: 0, failed: 1 });
    expect((await results(refused.id))[0].error).toMatchObject({
      status: 409,
      detail: `Ticket ${source} is merged into ticket ${target}: write to ticket ${target} instead`,
    });
  });

  it('has no cap: 10,000 tickets matched by a filter, each changed once', async () => {
    const requester = address();
    const db = await connectToDatabase({ database });
    try {
      await seedTickets(db, requester, 10_000, { title: 'Bulk' });
      const accepted = (await bulk({ filter: { requesterEmail: requester }, patch: { status: 'CLOSED' } }).expect(202)).body;
      // Ten thousand transactions: while the other suites run beside it, that takes a while (waited for while it moves on).
      expect(await finished(accepted.id)).toMatchObject({ status: 'succeeded', total: 10_000, done: 10_000, failed: 0 });
      const [[counts]] = (await db.query(
        `SELECT COUNT(*) AS closed, SUM((SELECT COUNT(*) FROM ticket_history h WHERE h.ticket_id = t.id AND h.action = 'UPDATED') = 1) AS once
         FROM tickets t WHERE t.requester_email = ? AND t.status = 'CLOSED'`,
        [requester],
      )) as any;
      expect([Number(counts.closed), Number(counts.once)]).toEqual([10_000, 10_000]);
    } finally {
      await db.end();
    }
  }, 900_000);

  it('refuses a bulk change that names neither or both of ids and filter, a bad filter, patch or comment, or changes nothing', async () => {
    const id = await create();
    const jobCount = async () => {
      const db = await connectToDatabase({ database });
      try {
        return Number(((await db.query('SELECT COUNT(*) AS n FROM jobs')) as any)[0][0].n);
      } finally {
        await db.end();
      }
    };
    const before = await jobCount();
    // A key it does not know, at any level, is a mistake a change of thousands of tickets must not pass over.
    for (const [body, named] of [
      [{ ids: [id], patch: { priority: 'LOW' }, coment: { body: 'x' } }, 'bulkRequest.coment'],
      [{ ids: [id], patch: { priority: 'LOW', colour: 'red' } }, 'patch.colour'],
      [{ ids: [id], patch: { tags: { ad: ['x'] } } }, 'patch.tags.ad'],
      [{ ids: [id], patch: { priority: 'LOW' }, comment: { body: 'x', visiblity: 'INTERNAL' } }, 'comment.visiblity'],
    ] as const) {
      expect((await problem(bulk(body), 400)).detail).toContain(named);
    }
    await problem(bulk({ filter: {}, patch: { priority: 'LOW' } }), 400);
    await problem(bulk({ ids: [id], patch: { tags: ['a'] } }), 400);
    expect((await problem(bulk({ ids: [id], patch: { fields: { nope: 1 } } }), 400)).errors[0].field).toBe('patch.fields.nope');
    await problem(bulk({ patch: { priority: 'LOW' } }), 400);
    await problem(bulk({ ids: [id], filter: { status: 'OPEN' }, patch: { priority: 'LOW' } }), 400);
    await problem(bulk({ ids: [], patch: { priority: 'LOW' } }), 400);
    await problem(bulk({ ids: [id, id], patch: { priority: 'LOW' } }), 400);
    await problem(bulk({ filter: { sort: 'id' }, patch: { priority: 'LOW' } }), 400);
    await problem(bulk({ filter: { colour: 'red' }, patch: { priority: 'LOW' } }), 400);
    await problem(bulk({ filter: { status: 'DONE' }, patch: { priority: 'LOW' } }), 400);
    await problem(bulk({ filter: { status: { any: 1 } }, patch: { priority: 'LOW' } }), 400);
    await problem(bulk({ ids: [id], patch: { priority: 'URGENT' } }), 400);
    await problem(bulk({ ids: [id], patch: { tags: { add: ['no spaces'] } } }), 400);
    await problem(bulk({ ids: [id], patch: {}, comment: { body: ' ' } }), 400);
    await problem(bulk({ ids: [id], patch: {} }), 400);
    await problem(bulk({ ids: [id], patch: [] }), 400);
    await problem(testApp.http.get('/api/v2/jobs/999999999'), 404);
    // None of them made a job.
    expect(await jobCount()).toBe(before);
  });

  it('replays a retried bulk change with its Idempotency-Key: one job', async () => {
    const id = await create();
    const key = randomUUID();
    const first = await bulk({ ids: [id], patch: { priority: 'HIGH' } })
      .set('Idempotency-Key', key)
      .expect(202);
    const again = await bulk({ ids: [id], patch: { priority: 'HIGH' } })
      .set('Idempotency-Key', key)
      .expect(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect([again.body.id, again.headers.location]).toEqual([first.body.id, first.headers.location]);
    await finished(first.body.id);
  });

  it('cancels a job: a running one stops between two batches, keeping what it changed', async () => {
    const requester = address();
    const db = await connectToDatabase({ database });
    try {
      // 400 tickets by SQL: the job is what is measured, not their creation.
      await seedTickets(db, requester, 400, { title: 'Bulk' });
    } finally {
      await db.end();
    }
    const started = (await bulk({ filter: { requesterEmail: requester }, patch: { priority: 'MEDIUM' } }).expect(202)).body;
    await waitUntil(async () => (await job(started.id)).done > 0, 30_000, 'the job under way');
    const cancelled = await testApp.http.post(`/api/v2/jobs/${started.id}/cancel`).expect(200);
    expect(cancelled.body.id).toBe(started.id);
    const ended = await finished(started.id);
    expect(ended.status).toBe('cancelled');
    expect(ended.total).toBe(400);
    expect(ended.done).toBeLessThan(400);
    const changed = (
      await testApp.http
        .get(`/api/v2/tickets?requesterEmail=${encodeURIComponent(requester)}&priority=MEDIUM&limit=1&total=true`)
        .expect(200)
    ).body.total;
    expect(changed).toBe(ended.done);
    // A queued job (a replica works one job at a time: this one waits behind a running one) is cancelled at once.
    const running = (await bulk({ filter: { requesterEmail: requester }, patch: { priority: 'HIGH' } }).expect(202)).body;
    const untouched = await create({ priority: 'LOW' });
    const queued = (await bulk({ ids: [untouched], patch: { priority: 'HIGH' } }).expect(202)).body;
    await waitUntil(async () => (await job(running.id)).status === 'running', 30_000, 'the first job running');
    expect((await testApp.http.post(`/api/v2/jobs/${queued.id}/cancel`).expect(200)).body).toMatchObject({
      status: 'cancelled',
      total: null,
    });
    await finished(running.id);
    expect((await testApp.http.get(`/api/v2/tickets/${untouched}`).expect(200)).body.priority).toBe('LOW');
  });

  it('takes over a job whose replica stopped, going on from the first ticket it had not recorded', async () => {
    const tickets = [await create({ priority: 'LOW' }), await create({ priority: 'LOW' }), await create({ priority: 'LOW' })];
    const db = await connectToDatabase({ database });
    let jobId: number;
    try {
      // A job another replica had begun: the first ticket recorded as changed (its change is not made again), its lease
      // running out a second from now (so that no replica claims the job before its items are written).
      const request = { ids: tickets, patch: { priority: 'CRITICAL' } };
      const [inserted] = (await db.query(
        `INSERT INTO jobs (kind, status, request, total, done, lease_owner, lease_epoch, lease_until, created_at, started_at)
         VALUES ('bulk', 'running', ?, 3, 1, 'a-replica-that-died', 4, NOW(3) + INTERVAL 1 SECOND, NOW(3), NOW(3))`,
        [JSON.stringify(request)],
      )) as any;
      jobId = inserted.insertId;
      await db.query(
        'INSERT INTO job_items (job_id, position, ticket_id, outcome, finished_at) VALUES (?, 1, ?, ?, NOW(3)), (?, 2, ?, NULL, NULL), (?, 3, ?, NULL, NULL)',
        [jobId, tickets[0], 'succeeded', jobId, tickets[1], jobId, tickets[2]],
      );
    } finally {
      await db.end();
    }
    expect(await finished(jobId)).toMatchObject({ status: 'succeeded', total: 3, done: 3, failed: 0 });
    const priorities = await Promise.all(
      tickets.map(async (id) => (await testApp.http.get(`/api/v2/tickets/${id}`).expect(200)).body.priority),
    );
    expect(priorities).toEqual(['LOW', 'CRITICAL', 'CRITICAL']);
  });

  it('goes on from a ticket changed but not commented on: its comment alone, or, when the job was cancelled, its failure', async () => {
    const [changed, cancelled] = [await create({ priority: 'LOW' }), await create({ priority: 'LOW' })];
    const db = await connectToDatabase({ database });
    const stopped = async (ticketId: number, cancel: boolean) => {
      // Another replica changed the ticket (its item at stage `changed`), then died before adding the comment; its lease
      // runs out a second from now, once the item is written.
      await testApp.http
        .patch(`/api/v2/tickets/${ticketId}`)
        .set('Content-Type', 'application/merge-patch+json')
        .send({ priority: 'HIGH' })
        .expect(200);
      const request = { ids: [ticketId], patch: { priority: 'HIGH' }, comment: { body: 'Raised by the night shift.' } };
      const [inserted] = (await db.query(
        `INSERT INTO jobs (kind, status, request, total, cancel_requested, lease_owner, lease_epoch, lease_until, created_at, started_at)
         VALUES ('bulk', 'running', ?, 1, ?, 'a-replica-that-died', 2, NOW(3) + INTERVAL 1 SECOND, NOW(3), NOW(3))`,
        [JSON.stringify(request), cancel ? 1 : 0],
      )) as any;
      await db.query("INSERT INTO job_items (job_id, position, ticket_id, stage) VALUES (?, 1, ?, 'changed')", [
        inserted.insertId,
        ticketId,
      ]);
      return inserted.insertId as number;
    };
    try {
      const resumed = await stopped(changed, false);
      expect(await finished(resumed)).toMatchObject({ status: 'succeeded', done: 1, failed: 0 });
      const history = (await testApp.http.get(`/api/v2/tickets/${changed}/history`).expect(200)).body.items as Json[];
      // One UPDATED (the change the other replica made), then the comment: the change is not made twice.
      expect(history.map((entry) => entry.action)).toEqual(['CREATED', 'UPDATED', 'COMMENTED']);

      const ended = await stopped(cancelled, true);
      expect(await finished(ended)).toMatchObject({ status: 'cancelled', done: 0, failed: 1 });
      expect((await results(ended))[0].error).toMatchObject({
        status: 409,
        detail: 'The job was cancelled after its change, before its comment',
      });
      expect((await testApp.http.get(`/api/v2/tickets/${cancelled}/comments`).expect(200)).body.items).toEqual([]);
    } finally {
      await db.end();
    }
  });

  it('gives a ticket up after three failures of its own, with a 500, and goes on with the others', async () => {
    const [failing, fine] = [await create({ priority: 'LOW' }), await create({ priority: 'LOW' })];
    const original = TicketsService.prototype.patch;
    let attempts = 0;
    const spy = jest.spyOn(TicketsService.prototype, 'patch').mockImplementation(function (this: TicketsService, id, ...rest) {
      if (id !== String(failing)) return original.call(this, id, ...rest);
      attempts += 1;
      return Promise.reject(new Error('the database went away'));
    });
    try {
      const accepted = (await bulk({ ids: [failing, fine], patch: { priority: 'HIGH' } }).expect(202)).body;
      expect(await finished(accepted.id)).toMatchObject({ status: 'partially_succeeded', done: 1, failed: 1 });
      expect(attempts).toBe(3);
      expect((await results(accepted.id)).map((result) => [result.ticketId, result.outcome, result.error?.status])).toEqual([
        [failing, 'failed', 500],
        [fine, 'succeeded', undefined],
      ]);
    } finally {
      spy.mockRestore();
    }
  });

  it('fences a replica whose lease went to another: what it would record is refused', async () => {
    const db = await connectToDatabase({ database });
    try {
      const [inserted] = (await db.query(
        `INSERT INTO jobs (kind, status, request, total, lease_owner, lease_epoch, lease_until, created_at, started_at)
         VALUES ('bulk', 'running', '{"ids":[1],"patch":{"priority":"LOW"}}', 1, 'holder', 7, NOW(3) + INTERVAL 1 HOUR, NOW(3), NOW(3))`,
      )) as any;
      const jobs = testApp.app.get(JobsRepository);
      // The repository's statements as the service's connections answer them: the result, not mysql2's [result, fields].
      const connection = { query: async (sql: string, params?: unknown[]) => (await db.query(sql, params))[0] };
      const claim = (await jobs.find(inserted.insertId))!;
      await expect(jobs.fence(connection, { ...claim, owner: 'holder', epoch: 6 }, 1000, { done: 1 })).rejects.toBeInstanceOf(JobLeaseLost);
      await expect(jobs.fence(connection, { ...claim, owner: 'another', epoch: 7 }, 1000, { done: 1 })).rejects.toBeInstanceOf(
        JobLeaseLost,
      );
      await jobs.fence(connection, { ...claim, owner: 'holder', epoch: 7 }, 1000, { done: 1 });
      expect((await jobs.find(inserted.insertId))!.done).toBe(1);
      await db.query("UPDATE jobs SET status = 'cancelled', finished_at = NOW(3) WHERE id = ?", [inserted.insertId]);
    } finally {
      await db.end();
    }
  });

  it('deletes jobs finished longer ago than JOBS_RETENTION with their results, and imports whose body stopped arriving a day ago', async () => {
    const db = await connectToDatabase({ database });
    const insert = async (status: string, createdDaysAgo: number, finishedDaysAgo: number | null) => {
      const [inserted] = (await db.query(
        `INSERT INTO jobs (kind, status, request, total, created_at, finished_at)
         VALUES ('bulk', ?, '{"ids":[1],"patch":{"priority":"LOW"}}', 1, NOW(3) - INTERVAL ? DAY, IF(? IS NULL, NULL, NOW(3) - INTERVAL ? DAY))`,
        [status, createdDaysAgo, finishedDaysAgo, finishedDaysAgo],
      )) as any;
      await db.query("INSERT INTO job_items (job_id, position, ticket_id, outcome) VALUES (?, 1, 1, 'succeeded')", [inserted.insertId]);
      return inserted.insertId as number;
    };
    const exists = async (id: number) => ((await db.query('SELECT id FROM jobs WHERE id = ?', [id]))[0] as unknown[]).length > 0;
    let app: Awaited<ReturnType<typeof createTestApp>> | undefined;
    try {
      const old = await insert('succeeded', 3, 2);
      const recent = await insert('succeeded', 1, 0);
      const abandoned = await insert('receiving', 2, null);
      const receiving = await insert('receiving', 0, null);
      // A replica purges at its first pass, then hourly: one started now purges these.
      app = await createTestApp({ env: { DB_DATABASE: database, JOBS_RETENTION: '1d' } });
      await waitUntil(async () => !(await exists(old)) && !(await exists(abandoned)), 30_000, 'the purge');
      expect([await exists(recent), await exists(receiving)]).toEqual([true, true]);
      const [items] = (await db.query('SELECT COUNT(*) AS n FROM job_items WHERE job_id IN (?)', [[old, abandoned]])) as any;
      expect(Number(items[0].n)).toBe(0);
      await db.query('DELETE FROM jobs WHERE id IN (?)', [[recent, receiving]]);
    } finally {
      await app?.close();
      await db.end();
    }
  });

  describe('with tokens', () => {
    const env: Record<string, string> = { DB_DATABASE: database };
    const tokens = useTestIssuer(env);
    const secured = useTestApp({ env });

    it('takes tickets.write; a requester can never run one nor read a job', async () => {
      const token = async (claims: Json) => ({ Authorization: `Bearer ${await tokens.issuer.token({ claims })}` });
      const agent = await token({ scope: 'tickets.read tickets.write', sub: 'agent-kim' });
      const reader = await token({ scope: 'tickets.read' });
      const email = address();
      const requester = await token({ scope: 'tickets.requester', email, sub: email });
      const own = (
        await secured.http
          .post('/api/v2/tickets')
          .set(agent)
          .send(buildTicketRequest({ requesterEmail: email }))
          .expect(201)
      ).body.id;
      expect(
        (
          await secured.http
            .post('/api/v2/tickets/bulk')
            .set(requester)
            .send({ ids: [own], patch: { priority: 'LOW' } })
        ).status,
      ).toBe(403);
      expect(
        (
          await secured.http
            .post('/api/v2/tickets/bulk')
            .set(reader)
            .send({ ids: [own], patch: { priority: 'LOW' } })
        ).status,
      ).toBe(403);
      const accepted = (
        await secured.http
          .post('/api/v2/tickets/bulk')
          .set(agent)
          .send({ ids: [own], patch: { priority: 'LOW' } })
          .expect(202)
      ).body;
      expect((await secured.http.get(`/api/v2/jobs/${accepted.id}`).set(requester)).status).toBe(403);
      await waitUntil(
        async () => (await secured.http.get(`/api/v2/jobs/${accepted.id}`).set(reader).expect(200)).body.finishedAt !== null,
        30_000,
        'the job finished',
      );
      // The job acts as the token that asked for it.
      const history = (await secured.http.get(`/api/v2/tickets/${own}/history`).set(agent).expect(200)).body.items as Json[];
      expect(history.at(-1)).toMatchObject({ action: 'UPDATED', actor: 'agent-kim' });
    });
  });
});
