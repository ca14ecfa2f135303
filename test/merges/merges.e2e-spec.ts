import { randomBytes, randomUUID } from 'node:crypto';
import { EventConsumer } from '../support/event-consumer.js';
import type { Connection } from 'mysql2/promise';
import { connectToDatabase } from '../support/database.js';
import { ServiceProcess } from '../support/service-process.js';
import { expectProblem } from '../support/problem-json.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { useTestIssuer } from '../support/test-issuer.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { uploadRaw } from '../support/attachment-uploads.js';
import { newMessageId, newSender, rawMail } from '../support/raw-mail.js';
import { waitUntil } from '../support/waits.js';
import { slaPolicyEnv } from '../support/sla-policy.js';

type Json = Record<string, any>;

const address = () => `m-${randomBytes(4).toString('hex')}@example.com`;

/** Merging duplicates into one ticket and undoing it (docs/api.md#merge), through HTTP, RabbitMQ and the change feed. */
describe('Merging tickets', () => {
  const testApp = useTestApp({ env: { MAIL_FROM: 'IT Support <support@desk.test>' } });
  let consumer: EventConsumer;

  const create = async (overrides: Json = {}): Promise<number> =>
    (await testApp.http.post('/api/v2/tickets').send(buildTicketRequest(overrides)).expect(201)).body.id;
  const merge = (target: number, body: Json) => testApp.http.post(`/api/v2/tickets/${target}/merge`).send(body);
  const unmerge = (target: number, source: number) => testApp.http.post(`/api/v2/tickets/${target}/unmerge`).send({ source });
  const problem = async (request: PromiseLike<any>, status: number) => expectProblem(asHttpResponse(await request), status);
  const get = async (path: string): Promise<any> => (await testApp.http.get(path).expect(200)).body;
  const comment = (id: number, body: string, visibility = 'PUBLIC') =>
    testApp.http.post(`/api/v2/tickets/${id}/comments`).send({ body, visibility });
  const withoutUpdatedAt = ({ updatedAt: _updatedAt, ...rest }: Json) => rest;

  /** Every read of a ticket a client has, as bytes but for updatedAt (an unmerge is a write: it moves forward). */
  const readPaths = async (id: number, exceptComment?: number) => {
    const commentsV1 = (await get(`/api/tickets/${id}/comments`)) as Json[];
    const commentsV2 = (await get(`/api/v2/tickets/${id}/comments?limit=100`)).items as Json[];
    const notNote = (item: Json) => item.id !== exceptComment;
    return JSON.stringify({
      v1: withoutUpdatedAt(await get(`/api/tickets/${id}`)),
      v2: withoutUpdatedAt(await get(`/api/v2/tickets/${id}`)),
      v1List: (await get(`/api/tickets?requesterEmail=${encodeURIComponent((await get(`/api/tickets/${id}`)).requesterEmail)}`)).map(
        withoutUpdatedAt,
      ),
      commentsV1: commentsV1.filter(notNote),
      commentsV2: commentsV2.filter(notNote),
      attachments: await get(`/api/v2/tickets/${id}/attachments?limit=100`),
      links: await get(`/api/v2/tickets/${id}/links`),
      transitions: await get(`/api/v2/tickets/${id}/transitions`),
    });
  };

  beforeAll(async () => {
    consumer = await EventConsumer.bound('ticket.#');
  });
  afterAll(() => consumer.stop());

  it('merges sources with their comments and files into the target, refuses writes to them, and an unmerge gives every read back', async () => {
    const [targetRequester, sourceRequester, cc] = [address(), address(), address()];
    const target = await create({ requesterEmail: targetRequester, status: 'IN_PROGRESS' });
    const resolved = await create({ requesterEmail: sourceRequester, status: 'RESOLVED' });
    const open = (
      await testApp.http
        .post('/api/v2/tickets')
        .send({ ...buildTicketRequest({ requesterEmail: targetRequester }), ccEmails: [cc] })
        .expect(201)
    ).body.id as number;
    await comment(target, 'On the target').expect(201);
    const onSource = (await comment(open, 'Same here, floor 3').expect(201)).body;
    const internal = (await comment(resolved, 'Checked the cable', 'INTERNAL').expect(201)).body;
    const file = (
      await uploadRaw(testApp.http, `/api/v2/tickets/${open}/attachments`, Buffer.from('log line\n'), 'printer.log', 'text/plain').expect(
        201,
      )
    ).body;
    const before = await Promise.all([target, resolved, open].map((id) => readPaths(id)));

    const answer = await merge(target, { sources: [open, resolved], comment: 'Same outage' }).expect(200);
    expect(answer.body).toEqual({
      targetId: target,
      sourceIds: [resolved, open],
      commentId: expect.any(Number),
      mergedAt: expect.any(String),
    });

    // Each source is closed, answers where it went, and is a duplicate of the target.
    for (const source of [resolved, open]) {
      const body = await get(`/api/v2/tickets/${source}`);
      expect([body.status, body.mergedInto, body.links]).toEqual(['CLOSED', target, { 'duplicate-of': 1 }]);
      expect(await get(`/api/tickets/${source}`)).not.toHaveProperty('mergedInto');
    }
    const merged = await get(`/api/v2/tickets/${target}`);
    expect(merged).not.toHaveProperty('mergedInto');
    expect([merged.status, merged.ccEmails, merged.links]).toEqual(['IN_PROGRESS', [sourceRequester, cc], { 'duplicated-by': 2 }]);
    // The target lists the sources' comments and files beside its own, each with its ticket; the sources keep theirs.
    const comments = (await get(`/api/v2/tickets/${target}/comments?limit=100`)).items as Json[];
    expect(comments.map((item) => [item.ticketId, item.body, item.visibility])).toEqual([
      [target, 'On the target', 'PUBLIC'],
      [open, onSource.body, 'PUBLIC'],
      [resolved, internal.body, 'INTERNAL'],
      [target, `Merged #${resolved}, #${open} into this ticket.\n\nSame outage`, 'INTERNAL'],
    ]);
    expect(comments.at(-1)!.id).toBe(answer.body.commentId);
    expect((await get(`/api/tickets/${target}/comments`)).length).toBe(4);
    expect(await get(`/api/v2/tickets/${target}/comments/${onSource.id}`)).toEqual(onSource);
    expect((await get(`/api/v2/tickets/${open}/comments?limit=100`)).items).toEqual([onSource]);
    expect((await get(`/api/v2/tickets/${target}/attachments?limit=100`)).items.map((item: Json) => [item.id, item.ticketId])).toEqual([
      [file.id, open],
    ]);
    const downloaded = await testApp.http.get(`/api/v2/tickets/${target}/attachments/${file.id}/content`).expect(200);
    expect(downloaded.text ?? downloaded.body.toString()).toBe('log line\n');

    // A merged ticket takes no write, and says where to write instead; reads still answer.
    for (const write of [
      testApp.http.patch(`/api/v2/tickets/${open}`).send({ priority: 'LOW' }),
      testApp.http.put(`/api/v2/tickets/${open}`).send(buildTicketRequest()),
      testApp.http.post(`/api/v2/tickets/${open}/tags`).send({ add: ['x'] }),
      comment(open, 'late'),
      uploadRaw(testApp.http, `/api/v2/tickets/${open}/attachments`, Buffer.from('x'), 'x.txt', 'text/plain'),
    ]) {
      const refused = await problem(write, 409);
      expect(refused.detail).toBe(`Ticket ${open} is merged into ticket ${target}: write to ticket ${target} instead`);
    }
    const v1 = await testApp.http.put(`/api/tickets/${open}`).send(buildTicketRequest()).expect(409);
    expect(v1.body).toMatchObject({
      status: 409,
      message: `Ticket ${open} is merged into ticket ${target}: write to ticket ${target} instead`,
    });
    await problem(merge(target, { sources: [open] }), 409);
    await problem(merge(open, { sources: [await create()] }), 409);

    // History on both sides, recorded as a merge, not as an ordinary status change.
    const entries = async (id: number) =>
      ((await get(`/api/v2/tickets/${id}/history?limit=100`)).items as Json[]).map((entry) => [entry.action, entry.changes]);
    const closedAt = { from: null, to: expect.any(String) };
    const moved = { from: expect.any(String), to: expect.any(String) };
    // A ticket created RESOLVED has no resolution time until it closes (decision 16).
    expect((await entries(resolved)).filter(([action]) => action === 'MERGED')).toEqual([
      [
        'MERGED',
        { status: { from: 'RESOLVED', to: 'CLOSED' }, resolvedAt: closedAt, updatedAt: moved, mergedInto: { from: null, to: target } },
      ],
    ]);
    expect((await entries(open)).filter(([action]) => action === 'MERGED')).toEqual([
      [
        'MERGED',
        { status: { from: 'OPEN', to: 'CLOSED' }, resolvedAt: closedAt, updatedAt: moved, mergedInto: { from: null, to: target } },
      ],
    ]);
    expect((await entries(target)).filter(([action]) => action === 'MERGED')).toEqual([
      ['MERGED', { sources: { from: null, to: [resolved, open] }, ccEmails: { from: [], to: [sourceRequester, cc] } }],
    ]);

    // Undone, every ticket reads as before: status, resolution time, participants, links, comments and files.
    // The target may not be deleted while tickets are merged into it; nothing moves while one may not move.
    expect((await get(`/api/v2/tickets/${open}/transitions`)).allowed).toEqual([]);
    await problem(testApp.http.delete(`/api/v2/tickets/${target}`), 409);
    // Undone one by one (the one still merged names participants of its own), every ticket reads as before.
    await unmerge(target, resolved).expect(200);
    expect((await get(`/api/v2/tickets/${target}`)).ccEmails).toEqual([cc]);
    await unmerge(target, open).expect(200);
    await problem(unmerge(target, resolved), 409);
    const after = await Promise.all([target, resolved, open].map((id) => readPaths(id, answer.body.commentId)));
    expect(after).toEqual(before);
    await testApp.http.patch(`/api/v2/tickets/${open}`).send({ priority: 'LOW' }).expect(200);
    expect((await entries(target)).at(-1)![0]).toBe('UNMERGED');

    // Every ticket's events in its order on RabbitMQ; the v1 key gets each UPDATED, byte for byte as ever.
    await consumer.waitFor(() => consumer.typesFor(open).filter((type) => type === 'UPDATED').length >= 3);
    const kinds = (id: number) => consumer.forTicket(id).map((message) => [message.properties.type, message.fields.routingKey]);
    const v1Key = process.env.RABBITMQ_ROUTING_KEY;
    expect(kinds(open)).toEqual([
      ['CREATED', v1Key],
      ['COMMENT_ADDED', 'ticket.comment.added'],
      ['ATTACHMENT_ADDED', 'ticket.attachment.added'],
      ['LINKED', 'ticket.linked'],
      ['UPDATED', v1Key],
      ['MERGED', 'ticket.merged'],
      ['UNLINKED', 'ticket.unlinked'],
      ['UPDATED', v1Key],
      ['UNMERGED', 'ticket.unmerged'],
      ['UPDATED', v1Key],
    ]);
    const closing = JSON.parse(consumer.forTicket(open)[4].content.toString());
    expect(Object.keys(closing.ticket).sort()).toEqual([
      'assignedTo',
      'createdAt',
      'description',
      'id',
      'priority',
      'requesterEmail',
      'resolvedAt',
      'status',
      'title',
      'updatedAt',
    ]);
    expect([closing.eventType, closing.ticket.status]).toEqual(['UPDATED', 'CLOSED']);
    expect(JSON.parse(consumer.forTicket(open)[5].content.toString()).merge).toEqual({ targetId: target, sourceIds: [resolved, open] });
    expect(kinds(target).map(([type]) => type)).toEqual([
      'CREATED',
      'COMMENT_ADDED',
      'LINKED',
      'LINKED',
      'COMMENT_ADDED',
      'UPDATED',
      'MERGED',
      'UNLINKED',
      'UPDATED',
      'UNMERGED',
      'UNLINKED',
      'UPDATED',
      'UNMERGED',
    ]);
  });

  it('merges 20 sources at once and unmerges them one by one, every read as before', async () => {
    const target = await create();
    const sources: number[] = [];
    for (let i = 0; i < 20; i++) {
      const id = await create({ requesterEmail: address(), status: i % 2 ? 'WAITING_ON_CUSTOMER' : 'OPEN' });
      await comment(id, `Report ${i}`).expect(201);
      sources.push(id);
    }
    const before = await Promise.all([target, ...sources].map((id) => readPaths(id)));
    const answer = await merge(target, { sources: [...sources].reverse() }).expect(200);
    expect(answer.body.sourceIds).toEqual(sources);
    const comments = (await get(`/api/v2/tickets/${target}/comments?limit=100`)).items as Json[];
    expect(comments.map((item) => item.body)).toEqual([...sources.map((_, i) => `Report ${i}`), expect.stringMatching(/^Merged #/)]);
    expect((await get(`/api/v2/tickets/${target}`)).ccEmails).toHaveLength(20);
    for (const source of [...sources].reverse()) await unmerge(target, source).expect(200);
    expect(await Promise.all([target, ...sources].map((id) => readPaths(id, answer.body.commentId)))).toEqual(before);
  });

  it('refuses a merge that names the target, a merged, missing or repeated ticket, or none, and changes nothing', async () => {
    const [target, source, other] = [await create(), await create(), await create()];
    const etag = (await testApp.http.get(`/api/v2/tickets/${target}`).expect(200)).headers.etag;
    await problem(merge(target, { sources: [] }), 400);
    await problem(merge(target, {}), 400);
    await problem(merge(target, { sources: [source, source] }), 400);
    await problem(merge(target, { sources: ['1'] }), 400);
    await problem(merge(target, { sources: [source, target] }), 409);
    const missing = await problem(merge(target, { sources: [source, 999_999_999] }), 404);
    expect(missing.detail).toBe('Ticket not found with id: 999999999');
    await problem(merge(999_999_998, { sources: [source] }), 404);
    await problem(merge(target, { sources: [source] }).set('If-Match', '"1-1"'), 412);
    // Nothing of the refused merges happened.
    expect((await get(`/api/v2/tickets/${source}`)).status).toBe('OPEN');
    expect((await testApp.http.get(`/api/v2/tickets/${target}`).set('If-None-Match', etag).expect(304)).status).toBe(304);
    await merge(target, { sources: [source] })
      .set('If-Match', etag)
      .expect(200);
    // A merged ticket is merged into no other, and nothing is merged into it.
    await problem(merge(other, { sources: [source] }), 409);
    await problem(merge(source, { sources: [other] }), 409);
    // A ticket that is the target's duplicate is merged the other way round.
    const original = await create();
    await testApp.http.post(`/api/v2/tickets/${other}/links`).send({ type: 'duplicated-by', ticketId: original }).expect(201);
    await problem(merge(original, { sources: [other] }), 409);
    await merge(other, { sources: [original] }).expect(200);
    // A source that already was the target's duplicate keeps that link when unmerged: the merge did not add it.
    expect((await get(`/api/v2/tickets/${original}/links`)).items).toHaveLength(1);
    await unmerge(other, original).expect(200);
    expect((await get(`/api/v2/tickets/${original}/links`)).items.map((link: Json) => link.type)).toEqual(['duplicate-of']);
    await problem(unmerge(other, source), 409);
    await problem(unmerge(other, 999_999_999), 404);
  });

  it('a target that was merged into another goes on showing what was merged into it, and a merged target is unmerged alone', async () => {
    const [first, second, third] = [await create(), await create(), await create()];
    await comment(first, 'first').expect(201);
    await comment(second, 'second').expect(201);
    await merge(second, { sources: [first] }).expect(200);
    await merge(third, { sources: [second] }).expect(200);
    const bodies = ((await get(`/api/v2/tickets/${third}/comments?limit=100`)).items as Json[]).map((item) => item.body);
    expect(bodies.filter((body) => !body.startsWith('Merged'))).toEqual(['first', 'second']);
    // A write to the first names where its conversation goes on: the end of the chain.
    const refused = await problem(comment(first, 'late'), 409);
    expect(refused.detail).toBe(`Ticket ${first} is merged into ticket ${third}: write to ticket ${third} instead`);
    // The second takes no write, not even an unmerge's, while it is merged itself.
    await problem(unmerge(second, first), 409);
    await unmerge(third, second).expect(200);
    expect(((await get(`/api/v2/tickets/${third}/comments?limit=100`)).items as Json[]).map((item) => item.body)).toEqual([
      expect.stringMatching(/^Merged #/),
    ]);
    expect((await get(`/api/v2/tickets/${first}`)).mergedInto).toBe(second);
  });

  it('pages the target’s comments and files with the sources’ in id order, by cursor', async () => {
    const [target, source] = [await create(), await create()];
    const written: number[] = [];
    for (let i = 0; i < 6; i++) written.push((await comment(i % 2 ? source : target, `c${i}`).expect(201)).body.id);
    await merge(target, { sources: [source] }).expect(200);
    const seen: number[] = [];
    let next: string | undefined = `/api/v2/tickets/${target}/comments?limit=2`;
    while (next) {
      const page: { body: Json } = await testApp.http.get(next).expect(200);
      seen.push(...(page.body.items as Json[]).map((item) => item.id));
      next = page.body.nextCursor
        ? `/api/v2/tickets/${target}/comments?limit=2&cursor=${encodeURIComponent(page.body.nextCursor)}`
        : undefined;
    }
    expect(seen.slice(0, 6)).toEqual(written);
    expect(seen).toHaveLength(7);
  });

  it('lets a merged source be deleted, taking its comments with it', async () => {
    const [target, source] = [await create(), await create()];
    await comment(source, 'gone with it').expect(201);
    await merge(target, { sources: [source] }).expect(200);
    await testApp.http.delete(`/api/v2/tickets/${source}`).expect(204);
    const bodies = ((await get(`/api/v2/tickets/${target}/comments?limit=100`)).items as Json[]).map((item) => item.body);
    expect(bodies).toEqual([expect.stringMatching(/^Merged #/)]);
    await testApp.http.delete(`/api/v2/tickets/${target}`).expect(204);
  });

  it('lets one of a merge and an update of a source win, the other failing cleanly', async () => {
    for (let round = 0; round < 6; round++) {
      const [target, source] = [await create(), await create({ status: 'OPEN' })];
      const [merged, patched] = await Promise.all([
        merge(target, { sources: [source] }),
        testApp.http.patch(`/api/v2/tickets/${source}`).send({ status: 'IN_PROGRESS' }),
      ]);
      expect(merged.status).toBe(200);
      expect([200, 409]).toContain(patched.status);
      const body = await get(`/api/v2/tickets/${source}`);
      expect([body.status, body.mergedInto]).toEqual(['CLOSED', target]);
      const history = ((await get(`/api/v2/tickets/${source}/history?limit=100`)).items as Json[]).map((entry) => entry.action);
      expect(history).toEqual(patched.status === 200 ? ['CREATED', 'UPDATED', 'LINKED', 'MERGED'] : ['CREATED', 'LINKED', 'MERGED']);
      // An unmerge restores what the source was when merged: after the update, when it came first.
      await unmerge(target, source).expect(200);
      expect((await get(`/api/v2/tickets/${source}`)).status).toBe(patched.status === 200 ? 'IN_PROGRESS' : 'OPEN');
    }
  });

  it('replays a retried merge with its Idempotency-Key, merging once', async () => {
    const [target, source] = [await create(), await create()];
    const key = randomUUID();
    const first = await merge(target, { sources: [source] })
      .set('Idempotency-Key', key)
      .expect(200);
    const again = await merge(target, { sources: [source] })
      .set('Idempotency-Key', key)
      .expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const history = ((await get(`/api/v2/tickets/${target}/history?limit=100`)).items as Json[]).map((entry) => entry.action);
    expect(history.filter((action) => action === 'MERGED')).toHaveLength(1);
  });

  it('refuses an unmerge after TICKETS_UNMERGE_WINDOW', async () => {
    const [target, source] = [await create(), await create()];
    await merge(target, { sources: [source] }).expect(200);
    const db = await connectToDatabase();
    try {
      await db.query('UPDATE ticket_merges SET merged_at = merged_at - INTERVAL 30 DAY - INTERVAL 1 SECOND WHERE source_id = ?', [source]);
    } finally {
      await db.end();
    }
    const late = await problem(unmerge(target, source), 409);
    expect(late.detail).toContain('TICKETS_UNMERGE_WINDOW');
    expect((await get(`/api/v2/tickets/${source}`)).mergedInto).toBe(target);
  });

  it('records MERGED and UNMERGED in the change feed, in each ticket’s order', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const [target, source] = [await create(), await create()];
    await merge(target, { sources: [source] }).expect(200);
    await unmerge(target, source).expect(200);
    const typesIn = async (id: number) =>
      ((await get(`/api/v2/changes?since=${since}&limit=1000`)).items as Json[])
        .filter((item) => item.ticketId === id)
        .map((item) => item.eventType);
    await waitUntil(async () => (await typesIn(source)).length === 7, 20_000, 'the source’s seven changes in the feed');
    expect(await typesIn(source)).toEqual(['CREATED', 'LINKED', 'UPDATED', 'MERGED', 'UNLINKED', 'UPDATED', 'UNMERGED']);
  });

  it('a mail replying to a merged ticket’s thread becomes a comment on its target', async () => {
    const sender = newSender();
    const opened = await testApp.http
      .post('/api/v2/inbound-email')
      .set('Content-Type', 'message/rfc822')
      .send(rawMail({ from: sender, to: 'support@desk.test', subject: 'Printer jams', text: 'It jams.', messageId: newMessageId() }))
      .expect(200);
    const source = opened.body.ticketId as number;
    const target = await create();
    await merge(target, { sources: [source] }).expect(200);
    const reply = await testApp.http
      .post('/api/v2/inbound-email')
      .set('Content-Type', 'message/rfc822')
      .send(
        rawMail({
          from: sender,
          to: 'support@desk.test',
          subject: `Re: [#${source}] Printer jams`,
          text: 'Still jams.',
          messageId: newMessageId(),
        }),
      )
      .expect(200);
    expect([reply.body.outcome, reply.body.ticketId]).toEqual(['commented', target]);
    const comments = (await get(`/api/v2/tickets/${target}/comments?limit=100`)).items as Json[];
    expect(comments.at(-1)).toMatchObject({ ticketId: target, body: 'Still jams.', author: sender, visibility: 'PUBLIC' });
  });

  it('a replica killed in the middle of a 20-source merge leaves nothing of it; the merge then runs whole on another', async () => {
    const target = await create();
    const sources: number[] = [];
    for (let i = 0; i < 20; i++) sources.push(await create());
    const changesOf = async (db: Connection) =>
      ((await db.query('SELECT COUNT(*) AS n FROM change_log WHERE ticket_id IN (?)', [[target, ...sources]])) as any)[0][0].n as number;
    const db = await connectToDatabase();
    const replica = await ServiceProcess.start();
    try {
      const before = await changesOf(db);
      // Hold the gap the merge's own rows go into: the merge waits there, with every source closed and linked in its transaction.
      await db.query('START TRANSACTION');
      await db.query('SELECT * FROM ticket_merges WHERE source_id = ? FOR UPDATE', [sources[0]]);
      const merging = fetch(`${replica.url}/api/v2/tickets/${target}/merge`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ sources }),
      }).then(
        (response) => response.status,
        () => 'no answer',
      );
      const waiting = async () =>
        (
          (await db.query(
            "SELECT COUNT(*) AS n FROM information_schema.processlist WHERE info LIKE '%INSERT INTO ticket_merges%' AND id <> CONNECTION_ID()",
          )) as any
        )[0][0].n > 0;
      await waitUntil(waiting, 20_000, 'the merge waiting to record its rows');
      replica.kill('SIGKILL');
      expect(await merging).toBe('no answer');
      await waitUntil(async () => !(await waiting()), 20_000, 'the killed replica’s connection gone');
      await db.query('ROLLBACK');
      for (const source of sources) {
        const body = await get(`/api/v2/tickets/${source}`);
        expect([source, body.status, body.mergedInto, body.links]).toEqual([source, 'OPEN', undefined, {}]);
      }
      expect(await changesOf(db)).toBe(before);
      await merge(target, { sources }).expect(200);
      expect(await changesOf(db)).toBe(before + 2 * 20 + 20 * 2 + 1 + 2);
    } finally {
      await db.query('ROLLBACK').catch(() => undefined);
      await db.end();
      await replica.stop();
    }
  });

  describe('with SLA clocks on', () => {
    const sla = useTestApp({ env: slaPolicyEnv({ HIGH: { firstResponse: 'PT3S', resolution: 'PT8H' } }) });

    it('pauses a source’s clocks while merged, never breaching, keeps the target’s running, and an unmerge resumes them', async () => {
      const open = async () =>
        (
          await sla.http
            .post('/api/v2/tickets')
            .send(buildTicketRequest({ priority: 'HIGH' }))
            .expect(201)
        ).body.id;
      const [target, source] = [await open(), await open()];
      const clocks = async (id: number) =>
        ((await sla.http.get(`/api/v2/tickets/${id}/sla`).expect(200)).body.metrics as Json[]).map((metric) => [
          metric.name,
          metric.ongoingCycle ? (metric.ongoingCycle.paused ? 'paused' : 'running') : 'completed',
          metric.ongoingCycle?.breached ?? null,
        ]);
      await sla.http
        .post(`/api/v2/tickets/${target}/merge`)
        .send({ sources: [source] })
        .expect(200);
      // Past the 3 s first response goal: the merged source has not breached; the target has.
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      expect(await clocks(source)).toEqual([
        ['firstResponse', 'paused', false],
        ['resolution', 'paused', false],
      ]);
      expect(await clocks(target)).toEqual([
        ['firstResponse', 'running', true],
        ['resolution', 'running', false],
      ]);
      expect((await sla.http.get(`/api/v2/tickets/${source}`).expect(200)).body.sla).toEqual({ breached: false, nextBreachTime: null });
      // Unmerged, its clocks go on with the time they had: the first response is still owed, and breaches 3 s on.
      await sla.http.post(`/api/v2/tickets/${target}/unmerge`).send({ source }).expect(200);
      expect(await clocks(source)).toEqual([
        ['firstResponse', 'running', false],
        ['resolution', 'running', false],
      ]);
      await waitUntil(async () => (await clocks(source))[0][2] === true, 10_000, 'the unmerged source’s first response breached');
    });
  });

  describe('with tokens', () => {
    const env: Record<string, string> = {};
    const tokens = useTestIssuer(env);
    const secured = useTestApp({ env });

    it('never lets a requester merge or unmerge; the source’s requester follows it to the target, never seeing anything internal', async () => {
      const since = new Date(Date.now() - 1000).toISOString();
      const token = async (claims: Json) => ({ Authorization: `Bearer ${await tokens.issuer.token({ claims })}` });
      const agent = await token({ scope: 'tickets.read tickets.write' });
      const email = address();
      const requester = await token({ scope: 'tickets.requester', email, sub: email });
      const open = async (body: Json) => (await secured.http.post('/api/v2/tickets').set(agent).send(body).expect(201)).body.id as number;
      const own = await open(buildTicketRequest({ requesterEmail: email }));
      const other = await open(buildTicketRequest());
      const target = await open(buildTicketRequest());
      // The other source holds the desk's notes: an internal comment, and a file only an internal comment names.
      const file = (
        await uploadRaw(secured.http, `/api/v2/tickets/${other}/attachments`, Buffer.from('secret'), 'notes.txt', 'text/plain')
          .set(agent)
          .expect(201)
      ).body.id;
      for (const [body, visibility, attachmentIds] of [
        ['Vendor contract number 4711', 'INTERNAL', [file]],
        ['We are on it', 'PUBLIC', []],
      ] as const) {
        await secured.http.post(`/api/v2/tickets/${other}/comments`).set(agent).send({ body, visibility, attachmentIds }).expect(201);
      }
      await problem(
        secured.http
          .post(`/api/v2/tickets/${target}/merge`)
          .set(requester)
          .send({ sources: [own] }),
        403,
      );
      await secured.http
        .post(`/api/v2/tickets/${target}/merge`)
        .set(agent)
        .send({ sources: [own, other], comment: 'Same outage' })
        .expect(200);
      await problem(secured.http.post(`/api/v2/tickets/${target}/unmerge`).set(requester).send({ source: own }), 403);
      expect((await secured.http.get(`/api/v2/tickets/${own}`).set(requester).expect(200)).body.mergedInto).toBe(target);
      // The merge made them a participant of the target: they read it and the sources' public comments, nothing internal.
      expect((await secured.http.get(`/api/v2/tickets/${target}`).set(requester).expect(200)).body.ccEmails).toContain(email);
      const comments = (await secured.http.get(`/api/v2/tickets/${target}/comments`).set(requester).expect(200)).body.items as Json[];
      expect(comments.map((item) => item.body)).toEqual(['We are on it']);
      expect((await secured.http.get(`/api/v2/tickets/${target}/attachments`).set(requester).expect(200)).body.items).toEqual([]);
      await problem(secured.http.get(`/api/v2/tickets/${target}/attachments/${file}`).set(requester), 404);
      for (const id of [own, target]) {
        const history = (await secured.http.get(`/api/v2/tickets/${id}/history`).set(requester).expect(200)).body.items as Json[];
        expect(history.map((entry) => entry.action)).not.toContain('MERGED');
      }
      // Their feed: the status change of their own ticket, never a merge's events nor its note.
      const changes = async (who: Json) =>
        ((await secured.http.get(`/api/v2/changes?since=${since}&limit=1000`).set(who).expect(200)).body.items as Json[]).filter((item) =>
          [own, other, target].includes(item.ticketId),
        );
      await waitUntil(
        async () => (await changes(agent)).some((item) => item.eventType === 'MERGED' && item.ticketId === target),
        20_000,
        'the merge in the feed',
      );
      const seen = await changes(requester);
      expect(seen.map((item) => item.eventType)).not.toContain('MERGED');
      expect(JSON.stringify(seen)).not.toContain('Same outage');
      expect(JSON.stringify(seen)).not.toContain('4711');
      expect(seen.some((item) => item.ticketId === own && item.eventType === 'UPDATED')).toBe(true);
    });
  });
});
