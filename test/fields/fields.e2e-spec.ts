import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { EventConsumer } from '../support/event-consumer.js';
import { FeedWalker } from '../support/change-feed.js';
import { connectToDatabase, seedTickets, useOwnDatabase } from '../support/database.js';
import { FieldDefinitionsRepository } from '../../src/fields/field-definitions.repository.js';
import { FieldValuesRepository } from '../../src/fields/field-values.repository.js';
import { ParticipantsRepository } from '../../src/people/participants.repository.js';
import { listen } from '../support/http-client.js';
import { expectProblem } from '../support/problem-json.js';
import { asHttpResponse } from '../support/supertest-response.js';
import request from 'supertest';
import { createTestApp, useTestApp } from '../support/test-app.js';
import { useTestIssuer } from '../support/test-issuer.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

type Json = Record<string, any>;

const MERGE_PATCH = 'application/merge-patch+json';

/**
 * Custom fields. On a database of its own: definitions are the whole service's, and a required field this suite
 * defines would refuse the creates of suites that follow in the worker's database.
 */
const database = useOwnDatabase('custom_fields');

describe('Custom fields', () => {
  const testApp = useTestApp({ env: { DB_DATABASE: database } });
  let consumer: EventConsumer;
  let walker: FeedWalker;

  const define = (body: Json) => testApp.http.post('/api/v2/fields').send(body);
  const create = async (overrides: Json = {}): Promise<Json> =>
    (
      await testApp.http
        .post('/api/v2/tickets')
        .send(buildTicketRequest({ fields: { category: 'network' }, ...overrides }))
        .expect(201)
    ).body;
  const patch = (id: number, body: Json) => testApp.http.patch(`/api/v2/tickets/${id}`).set('Content-Type', MERGE_PATCH).send(body);
  const problem = async (request: PromiseLike<any>, status: number) => expectProblem(asHttpResponse(await request), status);
  const fieldsNamed = (body: Json) => body.errors.map((error: Json) => error.field).sort();
  const ids = async (query: string): Promise<number[]> =>
    (await testApp.http.get(`/api/v2/tickets?${query}&limit=1000`).expect(200)).body.items.map((ticket: Json) => ticket.id);

  beforeAll(async () => {
    consumer = await EventConsumer.start();
    walker = new FeedWalker(`http://127.0.0.1:${await listen(testApp.app)}`);
    await walker.catchUp();
    await define({ key: 'category', label: 'Category', type: 'enum', options: ['network', 'hardware', 'access'], required: true }).expect(
      201,
    );
    await define({ key: 'cost', label: 'Cost', type: 'number', min: 0, max: 1000 }).expect(201);
    await define({ key: 'due', label: 'Due', type: 'date' }).expect(201);
    await define({ key: 'oncall', label: 'On call', type: 'boolean' }).expect(201);
    await define({ key: 'sites', label: 'Sites', type: 'multi_enum', options: ['ber', 'muc', 'ham'] }).expect(201);
    await define({ key: 'asset', label: 'Asset', type: 'text', pattern: 'PC-\\d{4}' }).expect(201);
  });
  afterAll(() => consumer.stop());

  it('defines fields, lists and reads them, and refuses a bad or taken definition', async () => {
    const list = (await testApp.http.get('/api/v2/fields').expect(200)).body.items;
    expect(list.map((field: Json) => field.key)).toEqual(['category', 'cost', 'due', 'oncall', 'sites', 'asset']);
    expect(list[0]).toMatchObject({ key: 'category', type: 'enum', required: true, options: ['network', 'hardware', 'access'], min: null });
    expect((await testApp.http.get('/api/v2/fields/cost').expect(200)).body).toMatchObject({ type: 'number', min: 0, max: 1000 });
    await problem(testApp.http.get('/api/v2/fields/nope'), 404);
    await problem(define({ key: 'cost', label: 'Again', type: 'number' }), 409);
    const bad = await problem(define({ key: 'Bad-Key', label: '', type: 'enum', options: [], pattern: '(a+)+' }), 400);
    expect(fieldsNamed(bad)).toEqual(['key', 'label', 'options', 'pattern']);
    await problem(define({ key: 'slow', label: 'Slow', type: 'text', pattern: '(x+x+)+y' }), 400);
    await problem(testApp.http.get('/api/v2/fields/%F0%9F%98%80'), 404);
    await problem(testApp.http.delete('/api/v2/fields/Bad-Key'), 404);
  });

  it("checks values by the definitions as they are in the write's transaction, not by a replica's cached copy", async () => {
    const other = await createTestApp({ env: { DB_DATABASE: database } });
    try {
      const key = `gone_${randomBytes(3).toString('hex')}`;
      await define({ key, label: 'Gone', type: 'enum', options: ['a', 'b'] }).expect(201);
      const ticket = await create();
      // The other replica reads the definitions now (and keeps them for up to a second), then one is narrowed and one deleted.
      const otherHttp = request(other.getHttpServer());
      await otherHttp.get('/api/v2/fields').expect(200);
      await testApp.http
        .patch(`/api/v2/fields/${key}`)
        .send({ options: ['a'] })
        .expect(200);
      const narrowed = await problem(
        otherHttp
          .patch(`/api/v2/tickets/${ticket.id}`)
          .set('Content-Type', MERGE_PATCH)
          .send({ fields: { [key]: 'b' } }),
        400,
      );
      expect(fieldsNamed(narrowed)).toEqual([`fields.${key}`]);
      await testApp.http.delete(`/api/v2/fields/${key}`).expect(204);
      const gone = await problem(
        otherHttp
          .patch(`/api/v2/tickets/${ticket.id}`)
          .set('Content-Type', MERGE_PATCH)
          .send({ fields: { [key]: 'a' } }),
        400,
      );
      expect(gone.errors[0].message).toMatch(/^Unknown field/);
      const created = await problem(
        otherHttp.post('/api/v2/tickets').send(buildTicketRequest({ fields: { category: 'network', [key]: 'a' } })),
        400,
      );
      expect(fieldsNamed(created)).toEqual([`fields.${key}`]);
    } finally {
      await other.close();
    }
  });

  it('checks every type on create, PUT and PATCH, naming each bad value as fields.<key>, and changes nothing then', async () => {
    const ticket = await create({
      fields: { category: 'network', cost: 12.5, due: '2026-12-01', oncall: true, sites: ['ham', 'ber'], asset: 'PC-0042' },
    });
    expect(ticket.fields).toEqual({
      category: 'network',
      cost: 12.5,
      due: '2026-12-01',
      oncall: true,
      sites: ['ber', 'ham'],
      asset: 'PC-0042',
    });
    expect((await testApp.http.get(`/api/v2/tickets/${ticket.id}`).expect(200)).body.fields).toEqual(ticket.fields);
    expect((await testApp.http.get(`/api/tickets/${ticket.id}`).expect(200)).body).not.toHaveProperty('fields');

    const wrong = { category: 'printer', cost: 1001, due: '2026-02-30', oncall: 'yes', sites: ['xxx'], asset: 'PC-42', nope: 1 };
    const expected = ['fields.asset', 'fields.category', 'fields.cost', 'fields.due', 'fields.nope', 'fields.oncall', 'fields.sites'];
    expect(fieldsNamed(await problem(testApp.http.post('/api/v2/tickets').send(buildTicketRequest({ fields: wrong })), 400))).toEqual(
      expected,
    );
    expect(
      fieldsNamed(await problem(testApp.http.put(`/api/v2/tickets/${ticket.id}`).send(buildTicketRequest({ fields: wrong })), 400)),
    ).toEqual(expected);
    expect(fieldsNamed(await problem(patch(ticket.id, { fields: wrong }), 400))).toEqual(expected);
    // A missing required value: on create and PUT; on PATCH only when removed.
    expect(fieldsNamed(await problem(testApp.http.post('/api/v2/tickets').send(buildTicketRequest()), 400))).toEqual(['fields.category']);
    expect(fieldsNamed(await problem(testApp.http.put(`/api/v2/tickets/${ticket.id}`).send(buildTicketRequest()), 400))).toEqual([
      'fields.category',
    ]);
    expect(fieldsNamed(await problem(patch(ticket.id, { fields: { category: null } }), 400))).toEqual(['fields.category']);
    expect(fieldsNamed(await problem(patch(ticket.id, { fields: 'category' }), 400))).toEqual(['fields']);
    expect((await testApp.http.get(`/api/v2/tickets/${ticket.id}`).expect(200)).body.fields).toEqual(ticket.fields);

    // A merge patch: a value replaces, null removes, absent keeps.
    const patched = (await patch(ticket.id, { fields: { cost: 99, oncall: null, sites: ['muc'] } }).expect(200)).body;
    expect(patched.fields).toEqual({ category: 'network', cost: 99, due: '2026-12-01', sites: ['muc'], asset: 'PC-0042' });
    const replaced = await testApp.http.put(`/api/v2/tickets/${ticket.id}`).send(buildTicketRequest({ fields: { category: 'access' } }));
    expect(replaced.body.fields).toEqual({ category: 'access' });
    // v1 writes never touch them, and v1 creates need none.
    await testApp.http.put(`/api/tickets/${ticket.id}`).send(buildTicketRequest()).expect(200);
    expect((await testApp.http.get(`/api/v2/tickets/${ticket.id}`).expect(200)).body.fields).toEqual({ category: 'access' });
    await testApp.http.post('/api/tickets').send(buildTicketRequest()).expect(201);
  });

  it('gives each of creates written together its own outcome: a bad value refuses that one alone', async () => {
    const answers = await Promise.all(
      [5, 50, 5000, 500].map((cost) =>
        testApp.http.post('/api/v2/tickets').send(buildTicketRequest({ fields: { category: 'network', cost } })),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 400, 201]);
    expect(fieldsNamed(answers[2].body)).toEqual(['fields.cost']);
    for (const answer of [answers[0], answers[1], answers[3]]) {
      expect((await testApp.http.get(`/api/v2/tickets/${answer.body.id}`).expect(200)).body.fields).toEqual(answer.body.fields);
    }
  });

  it('filters both versions by any of a value, and numbers and dates by range, with the other filters', async () => {
    const tag = `cf-${randomBytes(3).toString('hex')}`;
    const a = await create({
      tags: [tag],
      status: 'OPEN',
      fields: { category: 'hardware', cost: 10, due: '2026-01-10', oncall: true, sites: ['ber'] },
    });
    const b = await create({
      tags: [tag],
      status: 'CLOSED',
      fields: { category: 'access', cost: 500, due: '2026-03-01', sites: ['muc', 'ham'] },
    });
    const c = await create({ tags: [tag], status: 'OPEN', fields: { category: 'hardware', oncall: false } });
    const only = `anyTags=${tag}`;
    expect(await ids(`${only}&field.category=hardware`)).toEqual([a.id, c.id]);
    expect(await ids(`${only}&field.category=hardware,access&status=CLOSED`)).toEqual([b.id]);
    expect(await ids(`${only}&field.oncall=true`)).toEqual([a.id]);
    expect(await ids(`${only}&field.sites=ham`)).toEqual([b.id]);
    expect(await ids(`${only}&field.cost.gte=10&field.cost.lt=500`)).toEqual([a.id]);
    expect(await ids(`${only}&field.due.gte=2026-02-01`)).toEqual([b.id]);
    const v1 = (await testApp.http.get(`/api/tickets?${only}&field.category=hardware`).expect(200)).body;
    expect(v1.map((ticket: Json) => ticket.id)).toEqual([a.id, c.id]);
    expect(v1[0]).not.toHaveProperty('fields');

    for (const [query, field] of [
      ['field.nope=1', 'field.nope'],
      ['field.category=printer', 'field.category'],
      ['field.cost=5', 'field.cost'],
      ['field.cost.gte=abc', 'field.cost.gte'],
      ['field.due.lt=2026-13-01', 'field.due.lt'],
      ['field.category.gte=a', 'field.category.gte'],
    ]) {
      expect([query, fieldsNamed(await problem(testApp.http.get(`/api/v2/tickets?${query}`), 400))]).toEqual([query, [field]]);
    }
    await testApp.http.get('/api/tickets?field.nope=1').expect(400);

    // Text is compared as stored, byte for byte: a trailing space is part of the value.
    await define({ key: 'note', label: 'Note', type: 'text' }).expect(201);
    const plain = await create({ tags: [tag], fields: { category: 'access', note: 'x' } });
    const padded = await create({ tags: [tag], fields: { category: 'access', note: 'x ' } });
    expect(await ids(`${only}&field.note=x`)).toEqual([plain.id]);
    expect(await ids(`${only}&field.note=x%20`)).toEqual([padded.id]);
  });

  it('records each changed field in the history, and carries the values in the feed but never on the v1 key', async () => {
    const ticket = await create({ fields: { category: 'network', cost: 1 } });
    await patch(ticket.id, { fields: { cost: 2, sites: ['ber'] } }).expect(200);
    await patch(ticket.id, { title: 'Only the title' }).expect(200);
    const history = (await testApp.http.get(`/api/v2/tickets/${ticket.id}/history`).expect(200)).body.items as Json[];
    expect(history.map((entry) => Object.keys(entry.changes).filter((key) => key.startsWith('fields.')))).toEqual([
      ['fields.category', 'fields.cost'],
      ['fields.cost', 'fields.sites'],
      [],
    ]);
    expect(history[1].changes['fields.cost']).toEqual({ from: 1, to: 2 });
    const v1History = (await testApp.http.get(`/api/tickets/${ticket.id}/history`).expect(200)).body;
    expect(JSON.stringify(v1History)).not.toContain('fields.');

    await walker.until(() => walker.forTicket(ticket.id).length === 3);
    expect(walker.forTicket(ticket.id).map((item) => item.ticket.fields)).toEqual([
      { category: 'network', cost: 1 },
      { category: 'network', cost: 2, sites: ['ber'] },
      { category: 'network', cost: 2, sites: ['ber'] },
    ]);
    await consumer.waitFor(() => consumer.forTicket(ticket.id).length === 3);
    for (const message of consumer.forTicket(ticket.id)) expect(JSON.parse(message.content.toString()).ticket).not.toHaveProperty('fields');
  });

  it('refuses narrowing a definition while tickets hold values outside it, and records the values a deleted field takes along', async () => {
    const holder = await create({ fields: { category: 'access', cost: 800, asset: 'PC-1234' } });
    const narrowed = await problem(testApp.http.patch('/api/v2/fields/category').send({ options: ['network', 'hardware'] }), 409);
    expect(narrowed.detail).toMatch(/^\d+ ticket\(s\) hold values of category outside the new definition/);
    expect(Number(/^(\d+)/.exec(narrowed.detail)![1])).toBeGreaterThanOrEqual(1);
    await problem(testApp.http.patch('/api/v2/fields/cost').send({ max: 700 }), 409);
    await problem(testApp.http.patch('/api/v2/fields/asset').send({ pattern: 'PC-9\\d{3}' }), 409);
    await problem(testApp.http.patch('/api/v2/fields/cost').send({ type: 'text' }), 400);
    // Widening, relabelling and a pattern every value matches are allowed.
    const widened = (
      await testApp.http
        .patch('/api/v2/fields/category')
        .send({ label: 'Kind', options: ['network', 'hardware', 'access', 'other'] })
        .expect(200)
    ).body;
    expect(widened).toMatchObject({ key: 'category', label: 'Kind', options: ['network', 'hardware', 'access', 'other'] });
    await testApp.http.patch('/api/v2/fields/asset').send({ pattern: 'PC-\\d+' }).expect(200);
    expect(fieldsNamed(await problem(patch(holder.id, { fields: { asset: 'PC-' } }), 400))).toEqual(['fields.asset']);

    await define({ key: 'temporary', label: 'Temporary', type: 'text' }).expect(201);
    await patch(holder.id, { fields: { temporary: 'goes away' } }).expect(200);
    const held = (await testApp.http.get(`/api/v2/tickets/${holder.id}`).expect(200)).headers.etag;
    await testApp.http.get(`/api/v2/tickets/${holder.id}`).set('If-None-Match', held).expect(304);
    await testApp.http.delete('/api/v2/fields/temporary').expect(204);
    await problem(testApp.http.get('/api/v2/fields/temporary'), 404);
    // The body lost a value without a write: a cached copy is not current (its tag differs), yet still names the version a write may match.
    const after = await testApp.http.get(`/api/v2/tickets/${holder.id}`).set('If-None-Match', held).expect(200);
    expect(after.body.fields).not.toHaveProperty('temporary');
    expect(after.headers.etag).not.toEqual(held);
    await testApp.http.get(`/api/v2/tickets/${holder.id}`).set('If-None-Match', after.headers.etag).expect(304);

    const history = (await testApp.http.get(`/api/v2/tickets/${holder.id}/history`).expect(200)).body.items as Json[];
    expect(history.at(-1)!.changes).toEqual({ 'fields.temporary': { from: 'goes away', to: null } });
    await patch(holder.id, { fields: { cost: 700 } })
      .set('If-Match', held)
      .expect(200);
  });

  it('returns exactly the tickets a model selects, for random values and filters (property)', async () => {
    const tag = `model-${randomBytes(3).toString('hex')}`;
    const values = fc.record(
      {
        category: fc.constantFrom('network', 'hardware', 'access'),
        cost: fc.integer({ min: 0, max: 1000 }),
        oncall: fc.boolean(),
        sites: fc.subarray(['ber', 'muc', 'ham'], { minLength: 1 }),
      },
      { requiredKeys: ['category'] },
    );
    const tickets: Array<{ id: number; fields: Json }> = [];
    for (const fields of fc.sample(values, { numRuns: 30, seed: 42 })) {
      const created = await create({ tags: [tag], fields });
      tickets.push({ id: created.id, fields: created.fields });
    }
    const filter = fc.record(
      {
        category: fc.subarray(['network', 'hardware', 'access'], { minLength: 1 }),
        oncall: fc.boolean(),
        site: fc.constantFrom('ber', 'muc', 'ham'),
        costFrom: fc.integer({ min: 0, max: 1000 }),
        costBelow: fc.integer({ min: 0, max: 1001 }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(filter, async (chosen) => {
        const query = [`anyTags=${tag}`];
        if (chosen.category) query.push(`field.category=${chosen.category.join(',')}`);
        if (chosen.oncall !== undefined) query.push(`field.oncall=${chosen.oncall}`);
        if (chosen.site) query.push(`field.sites=${chosen.site}`);
        if (chosen.costFrom !== undefined) query.push(`field.cost.gte=${chosen.costFrom}`);
        if (chosen.costBelow !== undefined) query.push(`field.cost.lt=${chosen.costBelow}`);
        const model = tickets
          .filter(({ fields }) => !chosen.category || chosen.category.includes(fields.category))
          .filter(({ fields }) => chosen.oncall === undefined || fields.oncall === chosen.oncall)
          .filter(({ fields }) => !chosen.site || (fields.sites ?? []).includes(chosen.site))
          .filter(({ fields }) => chosen.costFrom === undefined || (fields.cost !== undefined && fields.cost >= chosen.costFrom))
          .filter(({ fields }) => chosen.costBelow === undefined || (fields.cost !== undefined && fields.cost < chosen.costBelow))
          .map(({ id }) => id);
        expect(await ids(query.join('&'))).toEqual(model);
      }),
      { numRuns: 40, seed: 7 },
    );
  });

  describe('with tokens', () => {
    const env: Record<string, string> = { DB_DATABASE: database };
    const tokens = useTestIssuer(env);
    const secured = useTestApp({ env });

    it('needs fields.manage to define fields, and never shows a requester the values nor lets one set, filter or sort by them', async () => {
      const token = async (claims: Json) => ({ Authorization: `Bearer ${await tokens.issuer.token({ claims })}` });
      const agent = await token({ scope: 'tickets.read tickets.write' });
      const manager = await token({ scope: 'fields.manage' });
      const email = `req-${randomBytes(3).toString('hex')}@example.com`;
      const requester = await token({ scope: 'tickets.requester', email, sub: email });
      const body = { key: `k${randomBytes(3).toString('hex')}`, label: 'K', type: 'text' };
      await secured.http.post('/api/v2/fields').set(agent).send(body).expect(403);
      await secured.http.post('/api/v2/fields').set(manager).send(body).expect(201);
      await secured.http.get('/api/v2/fields').set(agent).expect(200);
      await secured.http.get('/api/v2/fields').set(requester).expect(403);

      const ticket = (
        await secured.http
          .post('/api/v2/tickets')
          .set(agent)
          .send(buildTicketRequest({ requesterEmail: email, fields: { category: 'network', cost: 3 } }))
          .expect(201)
      ).body;
      expect(ticket.fields).toEqual({ category: 'network', cost: 3 });
      const own = (await secured.http.get(`/api/v2/tickets/${ticket.id}`).set(requester).expect(200)).body;
      expect(own).not.toHaveProperty('fields');
      const history = (await secured.http.get(`/api/v2/tickets/${ticket.id}/history`).set(requester).expect(200)).body.items;
      expect(JSON.stringify(history)).not.toContain('fields.');
      await problem(secured.http.get('/api/v2/tickets?field.category=network').set(requester), 403);
      await problem(secured.http.get('/api/v2/tickets?sort=-field.category').set(requester), 403);
      // A requester opens a ticket without fields (none is required of them), and may not set any.
      const open = buildTicketRequest({ requesterEmail: email, assignedTo: null });
      expect((await secured.http.post('/api/v2/tickets').set(requester).send(open).expect(201)).body).not.toHaveProperty('fields');
      await problem(
        secured.http
          .post('/api/v2/tickets')
          .set(requester)
          .send({ ...open, fields: { cost: 1 } }),
        403,
      );
    });
  });
  it('writes a new ticket’s values and participants without locking the gap after them: a newer ticket’s never wait for its transaction', async () => {
    await define({ key: 'gap_cost', label: 'Cost', type: 'number' }).expect(201);
    const definitions = await testApp.app.get(FieldDefinitionsRepository).all();
    const values = testApp.app.get(FieldValuesRepository);
    const participants = testApp.app.get(ParticipantsRepository);
    const [one, two] = [await connectToDatabase({ database }), await connectToDatabase({ database })];
    try {
      // The newest tickets, without values: theirs go at the end of the values' primary key, one after the other.
      const requester = `gap-${randomBytes(4).toString('hex')}@example.com`;
      await seedTickets(one, requester, 2);
      const [seeded] = (await one.query('SELECT id FROM tickets WHERE requester_email = ? ORDER BY id', [requester])) as any;
      const [first, second] = seeded.map((row: Json) => Number(row.id));
      // A DELETE of the values (or participants) a new ticket does not have locked the gap up to the end of the table: the second
      // transaction's INSERT then waited for the first's COMMIT (here: failed after a second), and two such deadlocked.
      await two.query('SET SESSION innodb_lock_wait_timeout = 1');
      await one.query('START TRANSACTION');
      await two.query('START TRANSACTION');
      await values.change(one, first, definitions, {}, { gap_cost: 1 });
      await values.change(two, second, definitions, {}, { gap_cost: 2 });
      await participants.replace(one, first, [], ['first@example.com']);
      await participants.replace(two, second, [], ['second@example.com']);
      await two.query('COMMIT');
      await one.query('COMMIT');
      const [rows] = (await one.query(
        'SELECT v.number_value FROM ticket_field_values v JOIN field_definitions d ON d.id = v.field_id WHERE d.field_key = ? ORDER BY v.ticket_id',
        ['gap_cost'],
      )) as any;
      expect(rows.map((row: Json) => Number(row.number_value))).toEqual([1, 2]);
      expect([...(await participants.of([first, second])).values()]).toEqual([['first@example.com'], ['second@example.com']]);
    } finally {
      await Promise.all([one.end(), two.end()]);
    }
  });
});
