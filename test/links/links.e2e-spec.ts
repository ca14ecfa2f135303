import { randomBytes } from 'node:crypto';
import { EventConsumer } from '../support/event-consumer.js';
import { expectProblem } from '../support/problem-json.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { useTestIssuer } from '../support/test-issuer.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { waitUntil } from '../support/waits.js';

type Json = Record<string, any>;

/** Links between tickets (docs/api.md#links), through HTTP, RabbitMQ and the change feed. */
describe('Links between tickets', () => {
  const testApp = useTestApp();
  let consumer: EventConsumer;

  const create = async (overrides: Json = {}): Promise<number> =>
    (await testApp.http.post('/api/v2/tickets').send(buildTicketRequest(overrides)).expect(201)).body.id;
  const link = (id: number, type: string, ticketId: number) => testApp.http.post(`/api/v2/tickets/${id}/links`).send({ type, ticketId });
  const linksOf = async (id: number): Promise<Array<[string, number]>> =>
    (await testApp.http.get(`/api/v2/tickets/${id}/links`).expect(200)).body.items.map((item: Json) => [item.type, item.ticketId]);
  const problem = async (request: PromiseLike<any>, status: number) => expectProblem(asHttpResponse(await request), status);
  const ids = async (query: string): Promise<number[]> =>
    (await testApp.http.get(`/api/v2/tickets?${query}&limit=1000`).expect(200)).body.items.map((ticket: Json) => ticket.id);

  beforeAll(async () => {
    consumer = await EventConsumer.bound('ticket.#');
  });
  afterAll(() => consumer.stop());

  it('shows a link stored once from both tickets, with the type as each sees it, for every type', async () => {
    for (const [type, inverse] of [
      ['relates-to', 'relates-to'],
      ['duplicate-of', 'duplicated-by'],
      ['duplicated-by', 'duplicate-of'],
      ['parent-of', 'child-of'],
      ['child-of', 'parent-of'],
      ['causes', 'caused-by'],
      ['caused-by', 'causes'],
    ]) {
      const [a, b] = [await create(), await create()];
      const added = await link(a, type, b).expect(201);
      expect(added.body).toMatchObject({ type, ticketId: b, createdBy: null });
      expect(added.headers.location).toBe(`/api/v2/tickets/${a}/links/${added.body.id}`);
      expect([type, await linksOf(a), await linksOf(b)]).toEqual([type, [[type, b]], [[inverse, a]]]);
      // The same link asked for from the other side is the one there is.
      await problem(link(b, inverse, a), 409);
      const bodies = await Promise.all([a, b].map(async (id) => (await testApp.http.get(`/api/v2/tickets/${id}`).expect(200)).body));
      expect(bodies.map((body) => body.links)).toEqual([{ [type]: 1 }, { [inverse]: 1 }]);
      expect((await testApp.http.get(`/api/tickets/${a}`).expect(200)).body).not.toHaveProperty('links');
    }
  });

  it('refuses a link to itself, to a missing ticket, from a missing one, twice, or one closing a cycle (naming it)', async () => {
    const [a, b, c] = [await create(), await create(), await create()];
    await problem(link(a, 'relates-to', a), 400);
    await problem(link(a, 'relates-to', 999_999_999), 404);
    await problem(link(999_999_999, 'relates-to', a), 404);
    await problem(link(a, 'sibling-of', b), 400);
    await problem(testApp.http.post(`/api/v2/tickets/${a}/links`).send({ type: 'causes', ticketId: '2' }), 400);
    await link(a, 'parent-of', b).expect(201);
    await link(b, 'parent-of', c).expect(201);
    const cycle = await problem(link(c, 'parent-of', a), 409);
    expect(cycle.detail).toContain(`${c} → ${a} → ${b} → ${c}`);
    await problem(link(a, 'child-of', c), 409);
    // Another kind of link is no cycle of this one.
    await link(c, 'causes', a).expect(201);
    await link(c, 'relates-to', a).expect(201);
    await problem(link(a, 'relates-to', c), 409);
    // Two tickets are never each other's duplicate.
    await link(b, 'duplicate-of', c).expect(201);
    await problem(link(c, 'duplicate-of', b), 409);
    await problem(link(b, 'duplicated-by', c), 409);
    expect(await linksOf(a)).toEqual([
      ['parent-of', b],
      ['caused-by', c],
      ['relates-to', c],
    ]);
    // Each link has its own address, from either of its tickets, and none from another ticket.
    const [first] = (await testApp.http.get(`/api/v2/tickets/${a}/links`).expect(200)).body.items;
    expect((await testApp.http.get(`/api/v2/tickets/${b}/links/${first.id}`).expect(200)).body).toMatchObject({
      type: 'child-of',
      ticketId: a,
    });
    await problem(testApp.http.get(`/api/v2/tickets/${c}/links/${first.id}`), 404);
  });

  it('lets only one of two concurrent links that together would close a cycle be added', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = [await create(), await create()];
      const answers = await Promise.all([link(a, 'causes', b), link(b, 'causes', a)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    }
  });

  it('records LINKED and UNLINKED in both histories, events on their routing keys and the feed, and removes a link from either side', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const [problemTicket, incident] = [await create(), await create()];
    const added = (await link(problemTicket, 'causes', incident).expect(201)).body;
    const etag = (await testApp.http.get(`/api/v2/tickets/${incident}`).expect(200)).headers.etag;
    await testApp.http.delete(`/api/v2/tickets/${incident}/links/${added.id}`).expect(204);
    await problem(testApp.http.delete(`/api/v2/tickets/${incident}/links/${added.id}`), 404);
    expect(await linksOf(problemTicket)).toEqual([]);
    // The body lost its link without a write: a cached copy is stale.
    const after = await testApp.http.get(`/api/v2/tickets/${incident}`).set('If-None-Match', etag).expect(200);
    expect(after.body.links).toEqual({});

    const entries = async (id: number) =>
      ((await testApp.http.get(`/api/v2/tickets/${id}/history`).expect(200)).body.items as Json[]).map((entry) => [
        entry.action,
        entry.changes,
      ]);
    const seen = (type: string, ticketId: number) => expect.objectContaining({ id: added.id, type, ticketId });
    expect((await entries(problemTicket)).slice(1)).toEqual([
      ['LINKED', { link: { from: null, to: seen('causes', incident) } }],
      ['UNLINKED', { link: { from: seen('causes', incident), to: null } }],
    ]);
    expect((await entries(incident)).slice(1)).toEqual([
      ['LINKED', { link: { from: null, to: seen('caused-by', problemTicket) } }],
      ['UNLINKED', { link: { from: seen('caused-by', problemTicket), to: null } }],
    ]);

    await consumer.waitFor(() => consumer.typesFor(incident).length >= 3 && consumer.typesFor(problemTicket).length >= 3);
    for (const [id, type] of [
      [problemTicket, 'causes'],
      [incident, 'caused-by'],
    ] as const) {
      const messages = consumer.forTicket(id);
      expect(messages.map((message) => [message.properties.type, message.fields.routingKey])).toEqual([
        ['CREATED', process.env.RABBITMQ_ROUTING_KEY],
        ['LINKED', 'ticket.linked'],
        ['UNLINKED', 'ticket.unlinked'],
      ]);
      expect(JSON.parse(messages[1].content.toString()).link).toMatchObject({ id: added.id, type });
    }
    // The feed numbers a change shortly after its commit: read until the ticket's three are there.
    const typesIn = async () =>
      ((await testApp.http.get(`/api/v2/changes?since=${since}`).expect(200)).body.items as Json[])
        .filter((item) => item.ticketId === incident)
        .map((item) => item.eventType);
    await waitUntil(async () => (await typesIn()).length === 3, 20_000, 'the three changes in the feed');
    expect(await typesIn()).toEqual(['CREATED', 'LINKED', 'UNLINKED']);
  });

  it('filters lists by linkedTo and linkType in both versions, and a deleted ticket takes its links along', async () => {
    const problemTicket = await create();
    const incidents = [await create(), await create(), await create()];
    const related = await create();
    for (const incident of incidents) await link(problemTicket, 'causes', incident).expect(201);
    await link(related, 'relates-to', problemTicket).expect(201);
    expect(await ids(`linkedTo=${problemTicket}`)).toEqual([...incidents, related]);
    expect(await ids(`linkedTo=${problemTicket}&linkType=caused-by`)).toEqual(incidents);
    expect(await ids(`linkedTo=${problemTicket}&linkType=relates-to`)).toEqual([related]);
    expect(await ids(`linkedTo=${incidents[0]}&linkType=causes`)).toEqual([problemTicket]);
    expect(await ids(`linkedTo=${incidents[0]}&linkType=caused-by`)).toEqual([]);
    const v1 = (await testApp.http.get(`/api/tickets?linkedTo=${problemTicket}&linkType=caused-by`).expect(200)).body;
    expect(v1.map((ticket: Json) => ticket.id)).toEqual(incidents);
    expect(v1[0]).not.toHaveProperty('links');
    await problem(testApp.http.get('/api/v2/tickets?linkedTo=abc'), 400);
    await problem(testApp.http.get('/api/v2/tickets?linkType=sibling-of'), 400);

    // A page's bodies each count their own links.
    const page = (await testApp.http.get(`/api/v2/tickets?linkedTo=${problemTicket}&limit=10`).expect(200)).body.items as Json[];
    expect(page.map((ticket) => ticket.links)).toEqual([{ 'caused-by': 1 }, { 'caused-by': 1 }, { 'caused-by': 1 }, { 'relates-to': 1 }]);

    await testApp.http.delete(`/api/v2/tickets/${incidents[1]}`).expect(204);
    expect(await ids(`linkedTo=${problemTicket}&linkType=caused-by`)).toEqual([incidents[0], incidents[2]]);
    expect((await testApp.http.get(`/api/v2/tickets/${problemTicket}`).expect(200)).body.links).toEqual({ causes: 2, 'relates-to': 1 });
    // The ticket at the other end of a deleted ticket's link records that it went.
    const last = ((await testApp.http.get(`/api/v2/tickets/${problemTicket}/history`).expect(200)).body.items as Json[]).at(-1)!;
    expect([last.action, last.changes.link.from]).toEqual([
      'UNLINKED',
      expect.objectContaining({ type: 'causes', ticketId: incidents[1] }),
    ]);
    await consumer.waitFor(() => consumer.typesFor(problemTicket).includes('UNLINKED'));
  });

  it("resolves a problem's incidents together, each by its own change and comment, and says what became of each", async () => {
    const problemTicket = await create();
    const open = [await create({ status: 'OPEN' }), await create({ status: 'IN_PROGRESS' })];
    const done = await create({ status: 'RESOLVED' });
    const unrelated = await create({ status: 'OPEN' });
    for (const incident of [...open, done]) await link(problemTicket, 'causes', incident).expect(201);
    await link(problemTicket, 'relates-to', unrelated).expect(201);
    const answer = await testApp.http
      .post(`/api/v2/tickets/${problemTicket}/resolve-linked`)
      .send({ status: 'RESOLVED', comment: 'The core switch was replaced.' })
      .expect(200);
    expect(answer.body.results).toEqual([
      { ticketId: open[0], outcome: 'moved' },
      { ticketId: open[1], outcome: 'moved' },
      { ticketId: done, outcome: 'unchanged' },
    ]);
    for (const incident of open) {
      expect((await testApp.http.get(`/api/v2/tickets/${incident}`).expect(200)).body.status).toBe('RESOLVED');
      const comments = (await testApp.http.get(`/api/v2/tickets/${incident}/comments`).expect(200)).body.items;
      expect(comments.map((comment: Json) => [comment.body, comment.visibility])).toEqual([['The core switch was replaced.', 'PUBLIC']]);
    }
    expect((await testApp.http.get(`/api/v2/tickets/${done}/comments`).expect(200)).body.items).toEqual([]);
    expect((await testApp.http.get(`/api/v2/tickets/${unrelated}`).expect(200)).body.status).toBe('OPEN');
    await problem(testApp.http.post(`/api/v2/tickets/${problemTicket}/resolve-linked`).send({ status: 'DONE' }), 400);
    await problem(testApp.http.post('/api/v2/tickets/999999999/resolve-linked').send({ status: 'RESOLVED' }), 404);
  });

  describe('with tokens', () => {
    const env: Record<string, string> = {};
    const tokens = useTestIssuer(env);
    const secured = useTestApp({ env });

    it('never lets a requester read, make or filter by links, nor see their history entries or changes', async () => {
      const since = new Date(Date.now() - 1000).toISOString();
      const token = async (claims: Json) => ({ Authorization: `Bearer ${await tokens.issuer.token({ claims })}` });
      const agent = await token({ scope: 'tickets.read tickets.write' });
      const email = `req-${randomBytes(3).toString('hex')}@example.com`;
      const requester = await token({ scope: 'tickets.requester', email, sub: email });
      const own = (
        await secured.http
          .post('/api/v2/tickets')
          .set(agent)
          .send(buildTicketRequest({ requesterEmail: email }))
          .expect(201)
      ).body.id;
      const other = (await secured.http.post('/api/v2/tickets').set(agent).send(buildTicketRequest()).expect(201)).body.id;
      await secured.http.post(`/api/v2/tickets/${own}/links`).set(agent).send({ type: 'caused-by', ticketId: other }).expect(201);
      await problem(secured.http.get(`/api/v2/tickets/${own}/links`).set(requester), 403);
      await problem(secured.http.post(`/api/v2/tickets/${own}/links`).set(requester).send({ type: 'relates-to', ticketId: other }), 403);
      await problem(secured.http.get(`/api/v2/tickets?linkedTo=${other}`).set(requester), 403);
      expect((await secured.http.get(`/api/v2/tickets/${own}`).set(requester).expect(200)).body).not.toHaveProperty('links');
      expect((await secured.http.get(`/api/v2/tickets/${own}`).set(agent).expect(200)).body.links).toEqual({ 'caused-by': 1 });
      const history = (await secured.http.get(`/api/v2/tickets/${own}/history`).set(requester).expect(200)).body.items;
      expect(history.map((entry: Json) => entry.action)).toEqual(['CREATED']);
      const typesIn = async (who: Json) =>
        ((await secured.http.get(`/api/v2/changes?since=${since}`).set(who).expect(200)).body.items as Json[])
          .filter((item) => item.ticketId === own)
          .map((item) => item.eventType);
      await waitUntil(async () => (await typesIn(agent)).length === 2, 20_000, 'both changes in the feed');
      expect(await typesIn(agent)).toEqual(['CREATED', 'LINKED']);
      expect(await typesIn(requester)).toEqual(['CREATED']);
    });
  });
});
