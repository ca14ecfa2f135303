import { randomBytes } from 'node:crypto';
import { EventConsumer } from '../support/event-consumer.js';
import { FeedWalker } from '../support/change-feed.js';
import { listen } from '../support/http-client.js';
import { expectProblem } from '../support/problem-json.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { useTestIssuer } from '../support/test-issuer.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { waitUntil } from '../support/waits.js';

type Json = Record<string, any>;

const MERGE_PATCH = 'application/merge-patch+json';
/** A tag of this run's own, so that lists filtered by it hold only this suite's tickets. */
const unique = (name: string) => `${name}-${randomBytes(4).toString('hex')}`;

describe('Tags', () => {
  const testApp = useTestApp();
  let consumer: EventConsumer;
  let walker: FeedWalker;

  beforeAll(async () => {
    consumer = await EventConsumer.start();
    walker = new FeedWalker(`http://127.0.0.1:${await listen(testApp.app)}`);
    await walker.catchUp();
  });
  afterAll(() => consumer.stop());

  const create = async (overrides: Json = {}): Promise<Json> =>
    (await testApp.http.post('/api/v2/tickets').send(buildTicketRequest(overrides)).expect(201)).body;
  const retag = (id: number, change: Json) => testApp.http.post(`/api/v2/tickets/${id}/tags`).send(change);
  const tagsOf = async (id: number): Promise<string[]> => (await testApp.http.get(`/api/v2/tickets/${id}`).expect(200)).body.tags;
  const listIds = async (path: string): Promise<number[]> => {
    const { body } = await testApp.http.get(path).expect(200);
    return (Array.isArray(body) ? body : body.items).map((ticket: Json) => ticket.id).sort((a: number, b: number) => a - b);
  };

  it('stores tags trimmed, lower-cased, once each and sorted, shows them in v2 and never in v1', async () => {
    const ticket = await create({ tags: [' VPN ', 'site:Berlin', 'vpn', 'Café', 'net.work_2-a'] });
    expect(ticket.tags).toEqual(['café', 'net.work_2-a', 'site:berlin', 'vpn']);
    expect(await tagsOf(ticket.id)).toEqual(ticket.tags);
    const v1 = (await testApp.http.get(`/api/tickets/${ticket.id}`).expect(200)).body;
    expect(v1).not.toHaveProperty('tags');
    const { ccEmails: _cc, tags: _tags, fields: _fields, links: _links, ...v1Fields } = ticket;
    expect(v1).toEqual(v1Fields);
    const listed = (await testApp.http.get(`/api/v2/tickets?tags=vpn,site:berlin&limit=5`).expect(200)).body.items;
    expect(listed.find((item: Json) => item.id === ticket.id).tags).toEqual(ticket.tags);
    expect(await create()).toMatchObject({ tags: [] });
  });

  it('refuses what is not a tag, and more than 50, with a 400 naming tags on every write path, changing nothing', async () => {
    const ticket = await create({ tags: ['kept'] });
    const tooMany = Array.from({ length: 51 }, (_, i) => `t${i}`);
    for (const tags of [['two words'], ['a/b'], [''], ['x'.repeat(65)], 'vpn', [42], tooMany]) {
      const field = (response: { body: Json }) => response.body.errors?.map((error: Json) => error.field);
      const posted = expectProblem(asHttpResponse(await testApp.http.post('/api/v2/tickets').send(buildTicketRequest({ tags }))), 400);
      expect(field({ body: posted })).toEqual(['tags']);
      const put = expectProblem(
        asHttpResponse(await testApp.http.put(`/api/v2/tickets/${ticket.id}`).send(buildTicketRequest({ tags }))),
        400,
      );
      expect(field({ body: put })).toEqual(['tags']);
      const patched = expectProblem(
        asHttpResponse(await testApp.http.patch(`/api/v2/tickets/${ticket.id}`).set('Content-Type', MERGE_PATCH).send({ tags })),
        400,
      );
      expect(field({ body: patched })).toEqual(['tags']);
      const added = expectProblem(asHttpResponse(await retag(ticket.id, { add: tags })), 400);
      expect(field({ body: added })).toEqual(tags === tooMany ? ['tags'] : ['add']);
    }
    // 49 more make 50: allowed; one more is not.
    const fifty = Array.from({ length: 49 }, (_, i) => `more${i}`);
    expect((await retag(ticket.id, { add: fifty }).expect(200)).body.tags).toHaveLength(50);
    expect(expectProblem(asHttpResponse(await retag(ticket.id, { add: ['one-too-many'] })), 400).errors[0]).toMatchObject({
      field: 'tags',
      code: 'Size',
    });
    expect(await tagsOf(ticket.id)).toHaveLength(50);
  });

  it('replaces tags by PUT and PATCH (null clears, absent keeps), and adds and removes them by the tags endpoint', async () => {
    const ticket = await create({ tags: ['a', 'b'] });
    const patch = async (body: Json) =>
      (await testApp.http.patch(`/api/v2/tickets/${ticket.id}`).set('Content-Type', MERGE_PATCH).send(body).expect(200)).body;
    expect((await patch({ assignedTo: 'someone' })).tags).toEqual(['a', 'b']);
    expect((await patch({ tags: ['C', 'a'] })).tags).toEqual(['a', 'c']);
    expect((await patch({ tags: null })).tags).toEqual([]);
    const put = await testApp.http
      .put(`/api/v2/tickets/${ticket.id}`)
      .send(buildTicketRequest({ tags: ['x'] }))
      .expect(200);
    expect(put.body.tags).toEqual(['x']);
    expect((await testApp.http.put(`/api/v2/tickets/${ticket.id}`).send(buildTicketRequest()).expect(200)).body.tags).toEqual([]);
    const changed = await retag(ticket.id, { add: ['Y', 'z', 'gone'], remove: ['gone', 'never-there'] }).expect(200);
    expect(changed.body.tags).toEqual(['y', 'z']);
    expect(changed.headers.etag).toBe(`"${ticket.id}-${Date.parse(changed.body.updatedAt)}"`);
    // A v1 PUT leaves the tags alone.
    await testApp.http.put(`/api/tickets/${ticket.id}`).send(buildTicketRequest()).expect(200);
    expect(await tagsOf(ticket.id)).toEqual(['y', 'z']);
  });

  it('keeps every tag of clients adding at once, honours If-Match and replays an Idempotency-Key', async () => {
    const ticket = await create();
    const tags = Array.from({ length: 20 }, (_, i) => `parallel-${i}`);
    await Promise.all(tags.map((tag) => retag(ticket.id, { add: [tag] }).expect(200)));
    expect(await tagsOf(ticket.id)).toEqual([...tags].sort());

    const current = await testApp.http.get(`/api/v2/tickets/${ticket.id}`).expect(200);
    await retag(ticket.id, { add: ['stale'] })
      .set('If-Match', `"${ticket.id}-1"`)
      .expect(412);
    await retag(ticket.id, { add: ['fresh'] })
      .set('If-Match', current.headers.etag)
      .expect(200);
    expect(await tagsOf(ticket.id)).toContain('fresh');
    expect(await tagsOf(ticket.id)).not.toContain('stale');

    const key = randomBytes(8).toString('hex');
    const first = await retag(ticket.id, { remove: ['fresh'] })
      .set('Idempotency-Key', key)
      .expect(200);
    await retag(ticket.id, { add: ['fresh'] }).expect(200);
    const replay = await retag(ticket.id, { remove: ['fresh'] })
      .set('Idempotency-Key', key)
      .expect(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await tagsOf(ticket.id)).toContain('fresh');
    await retag(999_999_999, { add: ['x'] }).expect(404);
  });

  it('lists the tags in use with their counts, the most used first, by prefix', async () => {
    const prefix = unique('ac');
    await create({ tags: [`${prefix}-one`, `${prefix}-two`] });
    await create({ tags: [`${prefix}-two`] });
    await create({ tags: [`${prefix}-two`, `${prefix}-three`] });
    const { body } = await testApp.http.get(`/api/v2/tags?prefix=${prefix.toUpperCase()}&limit=2`).expect(200);
    expect(body).toEqual({
      items: [
        { tag: `${prefix}-two`, tickets: 3 },
        { tag: `${prefix}-one`, tickets: 1 },
      ],
    });
    expectProblem(asHttpResponse(await testApp.http.get('/api/v2/tags?limit=0')), 400);
    expectProblem(asHttpResponse(await testApp.http.get('/api/v2/tags?prefix=a/b')), 400);
    expectProblem(asHttpResponse(await testApp.http.get('/api/v2/tags?other=1')), 400);
  });

  it('filters both versions by all tags (tags) or any (anyTags), with the other filters and the search', async () => {
    const [a, b] = [unique('fa'), unique('fb')];
    const both = await create({ tags: [a, b], status: 'OPEN', title: 'Printer jams on floor two' });
    const onlyA = await create({ tags: [a], status: 'CLOSED' });
    const onlyB = await create({ tags: [b, 'other'], status: 'OPEN' });
    await create({ tags: ['other'] });
    expect(await listIds(`/api/v2/tickets?tags=${a},${b}`)).toEqual([both.id]);
    expect(await listIds(`/api/v2/tickets?tags=${a}`)).toEqual([both.id, onlyA.id]);
    expect(await listIds(`/api/v2/tickets?anyTags=${a},${b}`)).toEqual([both.id, onlyA.id, onlyB.id]);
    expect(await listIds(`/api/v2/tickets?anyTags=${a},${b}&status=OPEN`)).toEqual([both.id, onlyB.id]);
    expect(await listIds(`/api/v2/tickets?anyTags=${a},${b}&q=printer`)).toEqual([both.id]);
    expect(await listIds(`/api/v2/tickets?tags=${b}&anyTags=${a},other`)).toEqual([both.id, onlyB.id]);
    expect((await testApp.http.get(`/api/v2/tickets?tags=${a}&limit=1&total=true`).expect(200)).body.total).toBe(2);
    // v1: the same filters, the same v1 bodies.
    expect(await listIds(`/api/tickets?tags=${a.toUpperCase()},${b}`)).toEqual([both.id]);
    const v1 = (await testApp.http.get(`/api/tickets?anyTags=${a}`).expect(200)).body;
    expect(v1.every((ticket: Json) => !('tags' in ticket))).toBe(true);
    expect(await listIds(`/api/tickets?anyTags=${a}&status=CLOSED`)).toEqual([onlyA.id]);
    // A page walk by cursor over a tag.
    const first = (await testApp.http.get(`/api/v2/tickets?anyTags=${a},${b}&limit=2&sort=-createdAt`).expect(200)).body;
    const second = (
      await testApp.http.get(`/api/v2/tickets?anyTags=${a},${b}&limit=2&sort=-createdAt&cursor=${first.nextCursor}`).expect(200)
    ).body;
    expect([...first.items, ...second.items].map((ticket: Json) => ticket.id)).toEqual([onlyB.id, onlyA.id, both.id]);
    expect(second.nextCursor).toBeNull();

    const bad = expectProblem(asHttpResponse(await testApp.http.get('/api/v2/tickets?tags=a/b')), 400);
    expect(bad.errors.map((error: Json) => error.field)).toEqual(['tags']);
    const many = Array.from({ length: 51 }, (_, i) => `t${i}`).join(',');
    expect(expectProblem(asHttpResponse(await testApp.http.get(`/api/v2/tickets?anyTags=${many}`)), 400).errors[0]).toMatchObject({
      field: 'anyTags',
      code: 'Size',
    });
    expect((await testApp.http.get('/api/tickets?anyTags=two%20words').expect(400)).body.errors[0].field).toBe('anyTags');
  });

  it('records tag changes in the history, carries tags in the change feed, and keeps v1 messages byte for byte', async () => {
    const ticket = await create({ tags: ['hist-a'] });
    await retag(ticket.id, { add: ['hist-b'], remove: ['hist-a'] }).expect(200);
    await testApp.http
      .put(`/api/tickets/${ticket.id}`)
      .send(buildTicketRequest({ title: 'Through v1' }))
      .expect(200);
    await testApp.http.delete(`/api/v2/tickets/${ticket.id.toString()}`).expect(204);

    // History of a ticket goes with it: read it before the delete on another ticket.
    const kept = await create({ tags: ['h1'] });
    await retag(kept.id, { add: ['h2'] }).expect(200);
    await testApp.http.patch(`/api/v2/tickets/${kept.id}`).set('Content-Type', MERGE_PATCH).send({ title: 'No tag change' }).expect(200);
    const history = (await testApp.http.get(`/api/v2/tickets/${kept.id}/history`).expect(200)).body.items as Json[];
    expect(history.map((entry) => entry.changes.tags)).toEqual([{ from: [], to: ['h1'] }, { from: ['h1'], to: ['h1', 'h2'] }, undefined]);

    await walker.until(() => walker.forTicket(ticket.id).length === 4);
    expect(walker.forTicket(ticket.id).map((item) => [item.eventType, item.ticket?.tags])).toEqual([
      ['CREATED', ['hist-a']],
      ['UPDATED', ['hist-b']],
      ['UPDATED', ['hist-b']],
      ['DELETED', undefined],
    ]);
    expect(walker.forTicket(ticket.id)[3].data.ticket.tags).toEqual(['hist-b']);

    await consumer.waitFor(() => consumer.forTicket(ticket.id).length === 3);
    for (const [i, message] of consumer.forTicket(ticket.id).entries()) {
      const event = walker.forTicket(ticket.id)[i].data;
      const { tags: _tags, fields: _fields, ...v1Ticket } = event.ticket;
      // The bytes v1 has always had: the event as recorded, its ticket without tags.
      expect(message.content.toString('utf8')).toBe(JSON.stringify({ ...event, ticket: v1Ticket }));
    }
  });

  describe('with requester tokens', () => {
    const env: Record<string, string> = {};
    const tokens = useTestIssuer(env);
    const secured = useTestApp({ env });

    it('never shows a requester tags, nor lets one set them or find tickets by them', async () => {
      const email = `${unique('req')}@example.com`;
      const since = new Date(Date.now() - 1000).toISOString();
      const agent = { Authorization: `Bearer ${await tokens.issuer.token({ claims: { scope: 'tickets.read tickets.write' } })}` };
      const requester = {
        Authorization: `Bearer ${await tokens.issuer.token({ claims: { scope: 'tickets.requester', email, sub: email } })}`,
      };
      const ticket = (
        await secured.http
          .post('/api/v2/tickets')
          .set(agent)
          .send(buildTicketRequest({ requesterEmail: email, tags: ['difficult'] }))
          .expect(201)
      ).body;
      expect(ticket.tags).toEqual(['difficult']);
      const own = (await secured.http.get(`/api/v2/tickets/${ticket.id}`).set(requester).expect(200)).body;
      expect(own).not.toHaveProperty('tags');
      const listed = (await secured.http.get('/api/v2/tickets').set(requester).expect(200)).body.items;
      expect(listed.map((item: Json) => item.id)).toEqual([ticket.id]);
      expect(listed[0]).not.toHaveProperty('tags');
      expectProblem(asHttpResponse(await secured.http.get('/api/v2/tickets?tags=difficult').set(requester)), 403);
      expectProblem(asHttpResponse(await secured.http.get('/api/v2/tickets?anyTags=difficult').set(requester)), 403);
      await secured.http.get('/api/tickets?anyTags=difficult').set(requester).expect(403);
      expectProblem(
        asHttpResponse(
          await secured.http
            .post(`/api/v2/tickets/${ticket.id}/tags`)
            .set(requester)
            .send({ add: ['x'] }),
        ),
        403,
      );
      expectProblem(asHttpResponse(await secured.http.get('/api/v2/tags').set(requester)), 403);
      const open = buildTicketRequest({ requesterEmail: email, assignedTo: null, tags: ['mine'] });
      expectProblem(asHttpResponse(await secured.http.post('/api/v2/tickets').set(requester).send(open)), 403);
      const patch = secured.http.patch(`/api/v2/tickets/${ticket.id}`).set(requester).set('Content-Type', MERGE_PATCH);
      expectProblem(asHttpResponse(await patch.send({ tags: [] })), 403);
      expect((await secured.http.get(`/api/v2/tickets/${ticket.id}`).set(agent).expect(200)).body.tags).toEqual(['difficult']);

      // Nor through the history, the change feed, or the replay of their own write.
      await secured.http
        .post(`/api/v2/tickets/${ticket.id}/tags`)
        .set(agent)
        .send({ add: ['vip'] })
        .expect(200);
      const history = (await secured.http.get(`/api/v2/tickets/${ticket.id}/history`).set(requester).expect(200)).body.items;
      expect(history.length).toBeGreaterThanOrEqual(2);
      expect(JSON.stringify(history)).not.toMatch(/difficult|vip|"tags"/);
      const agentHistory = (await secured.http.get(`/api/v2/tickets/${ticket.id}/history`).set(agent).expect(200)).body.items;
      expect(agentHistory.map((entry: Json) => entry.changes.tags?.to)).toEqual([['difficult'], ['difficult', 'vip']]);
      const v1History = (await secured.http.get(`/api/tickets/${ticket.id}/history`).set(agent).expect(200)).body;
      expect(JSON.stringify(v1History)).not.toMatch(/"tags"/);
      // The feed numbers a change shortly after its commit: read until both of the ticket's are there.
      const readFeed = async () => (await secured.http.get(`/api/v2/changes?since=${since}`).set(requester).expect(200)).body;
      const typesIn = (page: Json) => page.items.filter((item: Json) => item.ticketId === ticket.id).map((item: Json) => item.eventType);
      await waitUntil(async () => typesIn(await readFeed()).length === 2, 20_000, 'both changes in the feed');
      const feed = await readFeed();
      expect(typesIn(feed)).toEqual(['CREATED', 'UPDATED']);
      expect(JSON.stringify(feed)).not.toMatch(/difficult|vip|"tags"/);
      const key = randomBytes(8).toString('hex');
      const resolve = () =>
        secured.http
          .patch(`/api/v2/tickets/${ticket.id}`)
          .set(requester)
          .set('Content-Type', MERGE_PATCH)
          .set('Idempotency-Key', key)
          .send({ status: 'RESOLVED' })
          .expect(200);
      const [first, replay] = [await resolve(), await resolve()];
      expect(replay.headers['idempotent-replayed']).toBe('true');
      for (const answer of [first, replay]) expect(answer.body).not.toHaveProperty('tags');
    });
  });
});
