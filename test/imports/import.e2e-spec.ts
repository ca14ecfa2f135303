import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { EventConsumer } from '../support/event-consumer.js';
import { connectToDatabase, useOwnDatabase } from '../support/database.js';
import { expectProblem } from '../support/problem-json.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { waitUntil } from '../support/waits.js';
import { jobReads } from '../support/jobs.js';
import { Database } from '../../src/database/database.js';
import { JobsRepository } from '../../src/jobs/jobs.repository.js';
import { slaPolicyEnv } from '../support/sla-policy.js';
import { SmtpReceiver } from '../support/smtp-receiver.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { useTestIssuer } from '../support/test-issuer.js';

type Json = Record<string, any>;

// Its own: its tickets are counted by externalId prefix, and a 10,000-line import leaves its jobs behind.
const database = useOwnDatabase('imports');
const NDJSON = 'application/x-ndjson';
const GOALS = { firstResponse: 'PT1H', resolution: 'PT10H' };
const receiver = await SmtpReceiver.start();
afterAll(() => receiver.stop());

/** A line of an import, with what every line needs; `overrides` replace or (undefined) drop members. */
const line = (externalId: string, overrides: Json = {}): Json => {
  const base: Json = {
    externalId,
    title: `Printer on floor 3 jams (${externalId})`,
    description: 'Paper jams on every second page.',
    status: 'OPEN',
    priority: 'MEDIUM',
    requesterEmail: 'dana@example.com',
    createdAt: '2023-04-03T08:15:00Z',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(base).filter(([, value]) => value !== undefined));
};
const ndjson = (lines: Array<Json | string>) =>
  lines.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join('\n') + '\n';

/** Imports from another desk (docs/import.md), against the real servers. */
describe('Import', () => {
  // SLA and mail on: an imported ticket starts no clock and sends no mail where a created one does both.
  const testApp = useTestApp({
    env: {
      DB_DATABASE: database,
      JOBS_POLL_INTERVAL: '100ms',
      JOBS_LEASE_TTL: '2s',
      ...slaPolicyEnv({ LOW: GOALS, MEDIUM: GOALS, HIGH: GOALS, CRITICAL: GOALS }),
      MAIL_SMTP_URL: receiver.url,
      MAIL_FROM: 'IT Support <support@desk.test>',
      MAIL_REPLY_SECRET: 'a-reply-secret-for-the-tests-only',
      MAIL_SEND_POLL_INTERVAL_MS: '100',
    },
  });
  let consumer: EventConsumer;
  let v1: EventConsumer;

  const post = (body: string, query = '') => testApp.http.post(`/api/v2/imports${query}`).set('Content-Type', NDJSON).send(body);
  const { finished, results } = jobReads(testApp);
  /** Imports `lines` and waits for its job: the job and its results. */
  const imported = async (lines: Array<Json | string>): Promise<{ job: Json; results: Json[] }> => {
    const accepted = await post(ndjson(lines)).expect(202);
    expect(accepted.headers.location).toBe(`/api/v2/jobs/${accepted.body.id}`);
    return { job: await finished(accepted.body.id), results: await results(accepted.body.id) };
  };
  const ticket = async (id: number): Promise<Json> => (await testApp.http.get(`/api/v2/tickets/${id}`).expect(200)).body;
  const history = async (id: number): Promise<Json[]> => (await testApp.http.get(`/api/v2/tickets/${id}/history`).expect(200)).body.items;
  const comments = async (id: number): Promise<Json[]> => (await testApp.http.get(`/api/v2/tickets/${id}/comments`).expect(200)).body.items;
  /** A required enum field `site`, defined by the first test that needs it. */
  const defineSite = async () => {
    const response = await testApp.http
      .post('/api/v2/fields')
      .send({ key: 'site', label: 'Site', type: 'enum', options: ['berlin', 'lisbon'], required: true });
    expect([201, 409]).toContain(response.status);
  };
  const prefix = () => `zd-${randomBytes(3).toString('hex')}-`;

  beforeAll(async () => {
    consumer = await EventConsumer.bound('ticket.#');
    v1 = await EventConsumer.start();
  });
  afterAll(async () => {
    await consumer.stop();
    await v1.stop();
  });

  it('creates each line’s ticket with its own times, tags, fields and comments, and publishes IMPORTED, never CREATED', async () => {
    await defineSite();
    const id = prefix();
    const { job: done, results: lines } = await imported([
      line(`${id}1`, {
        status: 'RESOLVED',
        priority: 'HIGH',
        assignedTo: 'kim',
        ccEmails: ['Olaf@Example.com'],
        tags: ['Printer', 'floor-3'],
        fields: { site: 'berlin' },
        updatedAt: '2023-04-05T10:00:00Z',
        resolvedAt: '2023-04-04T16:30:00+02:00',
        comments: [
          { externalId: 'c1', author: 'dana@example.com', body: 'It jams again.', createdAt: '2023-04-03T09:00:00Z' },
          { author: 'kim', body: 'Ordered a new roller.', visibility: 'INTERNAL', createdAt: '2023-04-04T08:00:00Z' },
        ],
      }),
      '',
      // No field is required of an imported ticket: the desk's past predates its rules.
      line(`${id}2`, { createdAt: undefined }),
      line(`${id}3`, { priority: 'URGENT', tags: ['bad tag!'] }),
      '{"externalId": "broken',
    ]);
    expect(done).toMatchObject({ kind: 'import', status: 'partially_succeeded', total: 4, done: 2, failed: 2 });
    expect(lines.map(({ line: number, externalId, action, outcome }) => [number, externalId, action, outcome])).toEqual([
      [1, `${id}1`, 'created', 'succeeded'],
      [3, `${id}2`, 'created', 'succeeded'],
      [4, `${id}3`, null, 'failed'],
      [5, null, null, 'failed'],
    ]);
    expect(lines[2].ticketId).toBeNull();
    expect(lines[2].error).toMatchObject({ status: 400, line: 4, instance: '/api/v2/imports' });
    expect(lines[2].error.errors.map((error: Json) => error.field).sort()).toEqual(['priority', 'tags']);
    expect(lines[3].error).toMatchObject({ status: 400, line: 5 });
    expect(lines[3].error.detail).toMatch(/^Line 5: Not JSON/);

    const first = await ticket(lines[0].ticketId);
    expect(first).toMatchObject({
      status: 'RESOLVED',
      priority: 'HIGH',
      assignedTo: 'kim',
      ccEmails: ['olaf@example.com'],
      tags: ['floor-3', 'printer'],
      fields: { site: 'berlin' },
      createdAt: '2023-04-03T08:15:00.000Z',
      updatedAt: '2023-04-05T10:00:00.000Z',
      resolvedAt: '2023-04-04T14:30:00.000Z',
    });
    expect((await comments(first.id)).map((item) => [item.author, item.body, item.visibility, item.createdAt])).toEqual([
      ['dana@example.com', 'It jams again.', 'PUBLIC', '2023-04-03T09:00:00.000Z'],
      ['kim', 'Ordered a new roller.', 'INTERNAL', '2023-04-04T08:00:00.000Z'],
    ]);
    const entries = await history(first.id);
    expect(entries.map((entry) => entry.action)).toEqual(['IMPORTED']);
    expect(entries[0].changes).toMatchObject({
      externalId: { from: null, to: `${id}1` },
      status: { from: null, to: 'RESOLVED' },
      tags: { from: [], to: ['floor-3', 'printer'] },
      'fields.site': { from: null, to: 'berlin' },
      importedComments: { from: 0, to: 2 },
    });
    // Without a createdAt, a line with no other time is created when the import was received.
    const second = await ticket(lines[1].ticketId);
    expect(Date.parse(second.createdAt)).toBeGreaterThanOrEqual(Date.parse(done.createdAt));
    expect(second.updatedAt).toBe(second.createdAt);

    await consumer.waitFor(() => [first.id, second.id].every((ticketId) => consumer.typesFor(ticketId).length >= 1));
    expect(consumer.typesFor(first.id)).toEqual(['IMPORTED']);
    const [event] = consumer.forTicket(first.id);
    expect(event.fields.routingKey).toBe('ticket.imported');
    expect(JSON.parse(event.content.toString())).toMatchObject({
      eventType: 'IMPORTED',
      ticketId: first.id,
      ticket: { status: 'RESOLVED', tags: ['floor-3', 'printer'], fields: { site: 'berlin' } },
      import: { externalId: `${id}1`, action: 'created' },
    });
    // The change feed has it; the v1 routing key never carries it (a v1 consumer is not flooded by a migration).
    const feed = (await testApp.http.get(`/api/v2/changes?since=${encodeURIComponent(done.createdAt)}`).expect(200)).body;
    expect(feed.items.filter((item: Json) => item.ticketId === first.id).map((item: Json) => item.eventType)).toEqual(['IMPORTED']);
    expect(v1.forTicket(first.id)).toEqual([]);
    // Neither an SLA clock nor a mail: what is imported happened elsewhere. A ticket created after them, by the same
    // requester, has both (its acknowledgement is mailed once the notifier has read past the imports' changes).
    const created = (
      await testApp.http
        .post('/api/v2/tickets')
        .send({ ...buildTicketRequest({ requesterEmail: 'dana@example.com' }), fields: { site: 'lisbon' } })
        .expect(201)
    ).body;
    await receiver.waitFor('dana@example.com');
    // The v1 consumer sees the ticket created after them, so it has read past them.
    await v1.waitFor(() => v1.typesFor(created.id).length === 1);
    expect(v1.forTicket(first.id)).toEqual([]);
    const db = await connectToDatabase({ database });
    const count = async (table: string, ids: number[]) =>
      Number(((await db.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ticket_id IN (?)`, [ids]))[0] as Json[])[0].n);
    try {
      expect(await count('ticket_sla_clocks', [created.id])).toBeGreaterThan(0);
      expect(await count('mail_notifications', [created.id])).toBe(1);
      expect(await count('ticket_sla_clocks', [first.id, second.id])).toBe(0);
      expect(await count('mail_notifications', [first.id, second.id])).toBe(0);
      // Marked as seen by SLA, so that the next start's reconciliation does not look at them again.
      const [synced] = await db.query('SELECT COUNT(*) AS n FROM tickets WHERE id IN (?) AND sla_synced_at IS NOT NULL', [
        [first.id, second.id],
      ]);
      expect(Number((synced as Json[])[0].n)).toBe(2);
    } finally {
      await db.end();
    }
  });

  it('imports the same file again without a change, and an edited line as an update with only its new comments', async () => {
    const id = prefix();
    const comment = { externalId: 'c1', author: 'dana@example.com', body: 'Still broken.', createdAt: '2023-05-01T09:00:00Z' };
    const lines = [line(`${id}1`, { comments: [comment] }), line(`${id}2`)];
    const once = await imported(lines);
    expect(once.results.map((item) => item.action)).toEqual(['created', 'created']);
    const [a, b] = once.results.map((item) => item.ticketId as number);
    const before = [await ticket(a), await ticket(b)];

    const again = await imported(lines);
    expect(again.job).toMatchObject({ status: 'succeeded', done: 2, failed: 0 });
    expect(again.results.map((item) => [item.ticketId, item.action])).toEqual([
      [a, 'unchanged'],
      [b, 'unchanged'],
    ]);
    expect([await ticket(a), await ticket(b)]).toEqual(before);
    expect((await history(a)).length).toBe(1);

    const edited = line(`${id}1`, {
      status: 'CLOSED',
      updatedAt: '2023-05-02T12:00:00Z',
      comments: [comment, { author: 'kim', body: 'Replaced the roller.', createdAt: '2023-05-02T11:00:00Z' }],
    });
    const third = await imported([edited, lines[1]]);
    expect(third.results.map((item) => [item.ticketId, item.action])).toEqual([
      [a, 'updated'],
      [b, 'unchanged'],
    ]);
    expect(await ticket(a)).toMatchObject({
      status: 'CLOSED',
      createdAt: before[0].createdAt,
      updatedAt: '2023-05-02T12:00:00.000Z',
      resolvedAt: '2023-05-02T12:00:00.000Z',
    });
    expect((await comments(a)).map((item) => item.body)).toEqual(['Still broken.', 'Replaced the roller.']);
    const entries = await history(a);
    expect(entries.map((entry) => entry.action)).toEqual(['IMPORTED', 'IMPORTED']);
    expect(entries[1].changes).toEqual({
      status: { from: 'OPEN', to: 'CLOSED' },
      updatedAt: { from: before[0].updatedAt, to: '2023-05-02T12:00:00.000Z' },
      resolvedAt: { from: null, to: '2023-05-02T12:00:00.000Z' },
      importedComments: { from: 1, to: 2 },
    });
    await consumer.waitFor(() => consumer.typesFor(a).length >= 2);
    expect(consumer.forTicket(a).map((message) => JSON.parse(message.content.toString()).import.action)).toEqual(['created', 'updated']);
    expect(consumer.typesFor(b)).toEqual(['IMPORTED']);
  });

  it('answers a dry run with what the import would do and its refused lines, writing nothing', async () => {
    const id = prefix();
    const known = line(`${id}known`);
    await imported([known]);
    const body = ndjson([
      known,
      line(`${id}known`.replace('known', 'edit'), { title: 'New' }),
      { ...line(`${id}x`), createdAt: '2023-04-03T08:15:00' },
      line(`${id}known`, { title: 'Repeat' }),
      line(`${id}y`, { resolvedAt: '2023-04-04T00:00:00Z', comments: [{ body: '', createdAt: 'yesterday' }], colour: 'red' }),
    ]);
    const report = (await post(body, '?dryRun=true').expect(200)).body;
    expect(report).toMatchObject({ dryRun: true, lines: 5, create: 1, update: 0, unchanged: 1, invalid: 3 });
    expect(report.errors.map((error: Json) => [error.line, error.externalId])).toEqual([
      [3, `${id}x`],
      [4, `${id}known`],
      [5, `${id}y`],
    ]);
    expect(report.errors[1].error.detail).toBe(`Line 4: externalId "${id}known" repeats line 1`);
    expect(report.errors[2].error.errors.map((error: Json) => error.field).sort()).toEqual([
      'colour',
      'comments[0].body',
      'comments[0].createdAt',
      'resolvedAt',
    ]);
    const db = await connectToDatabase({ database });
    try {
      const [rows] = await db.query('SELECT COUNT(*) AS n FROM ticket_imports WHERE external_id LIKE ?', [`${id}%`]);
      expect(Number((rows as Json[])[0].n)).toBe(1);
    } finally {
      await db.end();
    }
  });

  it('imports 10,000 lines with comments, and the same file again as nothing new; an edited file updates its edited lines only', async () => {
    const id = prefix();
    const lines = Array.from({ length: 10_000 }, (_, i) =>
      line(`${id}${i}`, {
        tags: [`batch-${i % 7}`],
        comments: [
          { author: 'dana@example.com', body: `Line ${i}: still jams.`, createdAt: '2023-04-03T09:00:00Z' },
          { externalId: `c-${i}`, author: 'kim', body: 'Looking into it.', visibility: 'INTERNAL', createdAt: '2023-04-03T10:00:00Z' },
        ],
      }),
    );
    const body = ndjson(lines);
    const dry = (await post(body, '?dryRun=true').expect(200)).body;
    expect(dry).toMatchObject({ lines: 10_000, create: 10_000, update: 0, unchanged: 0, invalid: 0, errors: [] });

    const db = await connectToDatabase({ database });
    const count = async (sql: string) => Number(((await db.query(sql, [`${id}%`]))[0] as Json[])[0].n);
    const imports = 'SELECT COUNT(*) AS n FROM ticket_imports WHERE external_id LIKE ?';
    const commentCount =
      'SELECT COUNT(*) AS n FROM ticket_comments c JOIN ticket_imports i ON i.ticket_id = c.ticket_id WHERE i.external_id LIKE ?';
    const logged = 'SELECT COUNT(*) AS n FROM change_log c JOIN ticket_imports i ON i.ticket_id = c.ticket_id WHERE i.external_id LIKE ?';
    try {
      const started = Date.now();
      const accepted = await post(body).expect(202);
      const received = (Date.now() - started) / 1000;
      const first = await finished(accepted.body.id);
      const seconds = (Date.now() - started) / 1000;
      expect(first).toMatchObject({ status: 'succeeded', total: 10_000, done: 10_000, failed: 0 });
      expect([await count(imports), await count(commentCount), await count(logged)]).toEqual([10_000, 20_000, 10_000]);
      process.stdout.write(
        `10,000-line import with 20,000 comments: ${seconds.toFixed(1)} s (${Math.round(10_000 / seconds)} lines/s), received in ${received.toFixed(1)} s\n`,
      );

      const again = await finished((await post(body).expect(202)).body.id);
      expect(again).toMatchObject({ status: 'succeeded', done: 10_000, failed: 0 });
      const actions = (await results(again.id)).map((item) => item.action);
      expect(new Set(actions)).toEqual(new Set(['unchanged']));
      expect([await count(imports), await count(commentCount), await count(logged)]).toEqual([10_000, 20_000, 10_000]);

      const edited = lines.map((item, i) => (i % 1000 === 0 ? { ...item, priority: 'HIGH' } : item));
      const third = await finished((await post(ndjson(edited)).expect(202)).body.id);
      const outcomes = await results(third.id);
      expect(outcomes.filter((item) => item.action === 'updated').map((item) => item.line)).toEqual(
        Array.from({ length: 10 }, (_, i) => i * 1000 + 1),
      );
      expect(outcomes.filter((item) => item.action === 'unchanged')).toHaveLength(9_990);
      expect([await count(imports), await count(commentCount), await count(logged)]).toEqual([10_000, 20_000, 10_010]);
    } finally {
      await db.end();
    }
  }, 1_200_000);

  it('reads a job’s lines in batches within a size (4 MiB for an import), a larger line alone', async () => {
    const jobs = testApp.app.get(JobsRepository);
    const kib = [5, 3, 1, 2, 9, 1];
    const jobId = await testApp.app.get(Database).transaction(async (transaction) => {
      // Left receiving: no worker claims it.
      const { id } = await jobs.insert(transaction, 'import', { patch: {} }, null, new Date(), 'receiving');
      const lines = kib.map((size, i) => ({ position: i + 1, externalId: `batch-${i}`, payload: 'x'.repeat(size * 1024) }));
      await jobs.addLines(transaction, id, lines);
      return id;
    });
    const positions = async (limit: number, bytes?: number) => (await jobs.pending(jobId, limit, bytes)).map((item) => item.position);
    try {
      expect(await positions(48, 4 * 1024)).toEqual([1]);
      expect(await positions(48, 9 * 1024)).toEqual([1, 2, 3]);
      expect(await positions(48, 10 * 1024)).toEqual([1, 2, 3]);
      expect(await positions(2, 100 * 1024)).toEqual([1, 2]);
      expect(await positions(48)).toEqual([1, 2, 3, 4, 5, 6]);
      // Those worked already are not counted: the next batch starts at the first not yet worked.
      await jobs.record(testApp.app.get(Database), jobId, 1, { outcome: 'succeeded' });
      expect(await positions(48, 4 * 1024)).toEqual([2, 3]);
      expect((await jobs.pending(jobId, 1)).map((item) => item.payload!.length)).toEqual([3 * 1024]);
    } finally {
      // Left receiving it would count among the receptions a later test expects none of.
      await jobs.drop(jobId);
    }
  });

  it('imports a Zendesk export through the converter in scripts/, with its people, tags, fields and comments', async () => {
    await defineSite();
    const id = prefix();
    const converted = execFileSync(
      process.execPath,
      ['scripts/zendesk-to-ndjson.mjs', 'test/imports/fixtures/zendesk-export.json', '--prefix', id, '--field', '360001=site'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const { job: done, results: lines } = await imported(converted.trim().split('\n'));
    expect(done).toMatchObject({ status: 'succeeded', total: 2, done: 2, failed: 0 });
    expect(lines.map((item) => [item.externalId, item.action])).toEqual([
      [`${id}101`, 'created'],
      [`${id}102`, 'created'],
    ]);
    const vpn = await ticket(lines[0].ticketId);
    expect(vpn).toMatchObject({
      title: 'VPN drops every hour',
      status: 'RESOLVED',
      priority: 'CRITICAL',
      requesterEmail: 'dana@example.com',
      assignedTo: 'kim@desk.example',
      ccEmails: ['olaf@example.com'],
      tags: ['site-berlin', 'vpn'],
      fields: { site: 'berlin' },
      createdAt: '2023-02-01T08:00:00.000Z',
      updatedAt: '2023-02-03T17:45:00.000Z',
      resolvedAt: '2023-02-03T17:45:00.000Z',
    });
    expect([...vpn.description]).toHaveLength(2000);
    expect((await comments(vpn.id)).map((item) => [item.author, item.visibility, item.createdAt])).toEqual([
      ['dana@example.com', 'PUBLIC', '2023-02-01T08:00:00.000Z'],
      ['kim@desk.example', 'INTERNAL', '2023-02-01T09:30:00.000Z'],
      ['kim@desk.example', 'PUBLIC', '2023-02-03T17:40:00.000Z'],
    ]);
    const keyboard = await ticket(lines[1].ticketId);
    expect(keyboard).toMatchObject({ title: '(no subject)', status: 'WAITING_ON_CUSTOMER', priority: 'MEDIUM', fields: {} });
    expect((await comments(keyboard.id)).map((item) => item.body)).toEqual(['Keyboard missing keys', '(no text)']);
  });

  it('refuses, line by line, what a ticket may not be: a key with spaces, JSON too deep, a huge value kept short in the result', async () => {
    const id = prefix();
    let deep: Json = {};
    for (let i = 0; i < 40; i++) deep = { nested: deep };
    const { job: done, results: lines } = await imported([
      line(`${id}1 `),
      { ...line(`${id}2`), fields: deep },
      line(`${id}3`, { description: 'x'.repeat(70_000), comments: Array.from({ length: 300 }, () => ({ body: 'b', createdAt: 'soon' })) }),
      line(`${id}4`),
    ]);
    expect(done).toMatchObject({ status: 'partially_succeeded', total: 4, done: 1, failed: 3 });
    expect(lines[0].error.errors.map((error: Json) => error.field)).toEqual(['externalId']);
    expect(lines[1].error.detail).toBe('Line 2: Not acceptable JSON: nesting deeper than 32 levels');
    const huge = lines[2].error;
    expect(huge.errors).toHaveLength(301);
    expect(huge.errors.find((error: Json) => error.field === 'description').rejectedValue.length).toBeLessThanOrEqual(200);
    expect(JSON.stringify(huge).length).toBeLessThan(200_000);
    expect(lines[3]).toMatchObject({ action: 'created', outcome: 'succeeded' });
  });

  it('refuses to bring back a ticket deleted here since, or to change one merged since', async () => {
    const id = prefix();
    const once = await imported([line(`${id}deleted`), line(`${id}merged`), line(`${id}target`)]);
    const [deleted, merged, target] = once.results.map((item) => item.ticketId as number);
    await testApp.http.delete(`/api/v2/tickets/${deleted}`).expect(204);
    await testApp.http
      .post(`/api/v2/tickets/${target}/merge`)
      .send({ sources: [merged] })
      .expect(200);
    const edited = [line(`${id}deleted`, { title: 'Again' }), line(`${id}merged`, { title: 'Changed' })];
    const report = (await post(ndjson(edited), '?dryRun=true').expect(200)).body;
    expect(report).toMatchObject({ lines: 2, create: 0, update: 1, deleted: 1 });
    const again = await imported(edited);
    expect(again.results.map((item) => [item.ticketId, item.outcome, item.error?.status])).toEqual([
      [null, 'failed', 409],
      [null, 'failed', 409],
    ]);
    expect(again.results[0].error.detail).toMatch(/was deleted here: an import does not bring it back/);
    expect(again.results[1].error.detail).toBe(
      `Line 2: Ticket ${merged} is merged into ticket ${target}: write to ticket ${target} instead`,
    );
    await testApp.http.get(`/api/v2/tickets/${deleted}`).expect(404);
    expect((await ticket(merged)).title).not.toBe('Changed');
  });

  it('refuses a body that is not NDJSON, one without a line, and a bad dryRun, with a problem', async () => {
    expectProblem(asHttpResponse(await testApp.http.post('/api/v2/imports').send([line('a')])), 415);
    expectProblem(asHttpResponse(await post('\n\n')), 400);
    expectProblem(asHttpResponse(await post(ndjson([line('a')]), '?dryRun=yes')), 400);
    expectProblem(asHttpResponse(await post(ndjson([line('a')])).set('Content-Encoding', 'gzip')), 415);
    const db = await connectToDatabase({ database });
    try {
      // A body refused whole leaves no job behind.
      const [rows] = await db.query("SELECT COUNT(*) AS n FROM jobs WHERE status = 'receiving'");
      expect(Number((rows as Json[])[0].n)).toBe(0);
    } finally {
      await db.end();
    }
  });

  describe('with tokens', () => {
    const env: Record<string, string> = { DB_DATABASE: database };
    const tokens = useTestIssuer(env);
    const secured = useTestApp({ env });

    it("takes tickets.write; a requester never imports, and sees their imported ticket without the desk's parts", async () => {
      const token = async (claims: Json) => ({ Authorization: `Bearer ${await tokens.issuer.token({ claims })}` });
      const agent = await token({ scope: 'tickets.read tickets.write', sub: 'agent-kim' });
      const reader = await token({ scope: 'tickets.read' });
      const email = `imported-${randomBytes(4).toString('hex')}@example.com`;
      const requester = await token({ scope: 'tickets.requester', email, sub: email });
      const body = ndjson([
        line(prefix(), {
          requesterEmail: email,
          tags: ['vip'],
          comments: [
            { author: email, body: 'It jams.', createdAt: '2023-04-03T09:00:00Z' },
            { author: 'kim', body: 'Their printer is out of warranty.', visibility: 'INTERNAL', createdAt: '2023-04-03T10:00:00Z' },
          ],
        }),
      ]);
      const send = (headers: Record<string, string>, query = '') =>
        secured.http.post(`/api/v2/imports${query}`).set(headers).set('Content-Type', NDJSON).send(body);
      expectProblem(asHttpResponse(await send(requester)), 403);
      expectProblem(asHttpResponse(await send(requester, '?dryRun=true')), 403);
      expect((await send(reader)).status).toBe(403);
      const accepted = (await send(agent).expect(202)).body;
      await waitUntil(
        async () => (await secured.http.get(`/api/v2/jobs/${accepted.id}`).set(agent).expect(200)).body.finishedAt !== null,
        30_000,
        'the import finished',
      );
      const [result] = (await secured.http.get(`/api/v2/jobs/${accepted.id}/results`).set(agent).expect(200)).body.items;
      const id = result.ticketId as number;
      const entries = (await secured.http.get(`/api/v2/tickets/${id}/history`).set(agent).expect(200)).body.items as Json[];
      expect(entries.map((entry) => [entry.action, entry.actor, entry.changes.importedComments])).toEqual([
        ['IMPORTED', 'agent-kim', { from: 0, to: 2 }],
      ]);

      const seen = (await secured.http.get(`/api/v2/tickets/${id}/history`).set(requester).expect(200)).body.items as Json[];
      expect(seen.map((entry) => entry.action)).toEqual(['IMPORTED']);
      expect(Object.keys(seen[0].changes).filter((key) => ['tags', 'importedComments'].includes(key) || key.startsWith('fields.'))).toEqual(
        [],
      );
      // v1's history, streamed whole, leaves it out too.
      const v1History = (await secured.http.get(`/api/tickets/${id}/history`).set(requester).expect(200)).body as Json[];
      expect(v1History.map((entry) => [entry.action, Object.keys(entry.changes).includes('importedComments')])).toEqual([
        ['IMPORTED', false],
      ]);
      const theirs = (await secured.http.get(`/api/v2/tickets/${id}/comments`).set(requester).expect(200)).body.items as Json[];
      expect(theirs.map((comment) => comment.body)).toEqual(['It jams.']);
      const feed = (
        await secured.http
          .get(`/api/v2/changes?since=${encodeURIComponent(accepted.createdAt)}`)
          .set(requester)
          .expect(200)
      ).body.items as Json[];
      const change = feed.find((item) => item.ticketId === id)!;
      expect(change.eventType).toBe('IMPORTED');
      expect(change.data.ticket.requesterEmail).toBe(email);
      expect([change.data.ticket.tags, change.data.ticket.fields]).toEqual([undefined, undefined]);
    });
  });
});
