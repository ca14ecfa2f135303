import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { useTestApp } from '../support/test-app.js';
import { TestIssuer } from '../support/test-issuer.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { slaPolicyEnv } from '../support/sla-policy.js';

const JWT = 'SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_';
const AGENT = 'tickets.read tickets.write organizations.manage';
const STATUSES = ['OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED'] as const;

interface Organization {
  domain: string;
  /** An address of another domain it lists as a member. */
  member: string;
  sharedTickets: boolean;
  sharedComments: boolean;
}

interface Ticket {
  id: number;
  requester: string;
  /** Its participants (ccEmails), lower case. */
  cc: string[];
  comments: Array<{ id: number; visibility: 'PUBLIC' | 'INTERNAL' }>;
}

/** The model the service must agree with: who belongs where, and so who sees and comments on what. */
class World {
  constructor(
    readonly organizations: Organization[],
    readonly people: string[],
  ) {}

  organizationOf(email: string): Organization | undefined {
    const address = email.toLowerCase();
    return (
      this.organizations.find((o) => o.member === address) ??
      this.organizations.find((o) => address.endsWith(`@${o.domain}`) && !this.organizations.some((other) => other.member === address))
    );
  }

  sees(viewer: string, ticket: Ticket): boolean {
    if (ticket.requester.toLowerCase() === viewer || ticket.cc.includes(viewer)) return true;
    const mine = this.organizationOf(viewer);
    return mine !== undefined && mine.sharedTickets && this.organizationOf(ticket.requester) === mine;
  }

  commentsOn(viewer: string, ticket: Ticket): boolean {
    if (ticket.requester.toLowerCase() === viewer || ticket.cc.includes(viewer)) return true;
    return this.sees(viewer, ticket) && this.organizationOf(viewer)!.sharedComments;
  }
}

describe('Requester tokens see only their tickets, and never an internal comment', () => {
  let issuer: TestIssuer;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    issuer = await TestIssuer.start();
    await issuer.addKey('rsa-1', 'RS256');
    Object.assign(env, { [`${JWT}ISSUERURI`]: issuer.url, [`${JWT}AUDIENCES`]: 'ticket-service', CHANGES_STREAM_MAX_SECONDS: '2' });
  });
  const testApp = useTestApp({ env });
  afterAll(() => issuer.stop());

  const agent = async () => ({ Authorization: `Bearer ${await issuer.token({ claims: { scope: AGENT } })}` });
  const as = async (email: string, claims: Record<string, unknown> = {}) => ({
    Authorization: `Bearer ${await issuer.token({ claims: { scope: 'tickets.requester', email, sub: email, ...claims } })}`,
  });
  const unique = () => randomBytes(4).toString('hex');

  interface FeedItem {
    ticketId: number;
    eventType: string;
    data: { comment?: { id: number } };
  }

  /** The change feed from `since` to its end, as these headers read it. */
  async function walkFeed(headers: Record<string, string>, since: string): Promise<FeedItem[]> {
    const items: FeedItem[] = [];
    let query: Record<string, string> = { since, limit: '100' };
    for (;;) {
      const page = await testApp.http.get('/api/v2/changes').query(query).set(headers);
      expect(page.status).toBe(200);
      items.push(...(page.body.items as FeedItem[]));
      if (page.body.endOfStream) return items;
      query = { after: page.body.nextCursor as string, limit: '100' };
    }
  }

  /** Builds a world through the API as an agent: organizations, tickets of random requesters, public and internal comments. */
  async function build(shape: {
    shares: Array<[boolean, boolean]>;
    tickets: Array<{ requester: number; upper: boolean; status: number; comments: boolean[]; cc: number[] }>;
  }): Promise<{ world: World; tickets: Ticket[]; word: string }> {
    const run = unique();
    const organizations = shape.shares.map(([sharedTickets, sharedComments], i) => ({
      domain: `o${i}-${run}.test`,
      member: `guest${i}@elsewhere-${run}.test`,
      sharedTickets,
      sharedComments,
    }));
    const headers = await agent();
    for (const organization of organizations) {
      const created = await testApp.http
        .post('/api/v2/organizations')
        .set(headers)
        .send({
          name: organization.domain,
          domains: [organization.domain.toUpperCase()],
          members: [organization.member],
          sharedTickets: organization.sharedTickets,
          sharedComments: organization.sharedComments,
        });
      expect(created.status).toBe(201);
    }
    const people = [...organizations.flatMap((o, i) => [`a${i}@${o.domain}`, `b${i}@${o.domain}`, o.member]), `loner@nowhere-${run}.test`];
    const world = new World(organizations, people);
    const word = `w${run}`;
    const tickets: Ticket[] = [];
    for (const spec of shape.tickets) {
      const person = people[spec.requester % people.length];
      const requester = spec.upper ? person.toUpperCase() : person;
      const cc = [...new Set(spec.cc.map((i) => people[i % people.length]))];
      // Participants are a v2 field: tickets with some are created through v2 (in upper case: stored lower-cased).
      const created = await testApp.http
        .post(cc.length > 0 ? '/api/v2/tickets' : '/api/tickets')
        .set(headers)
        .send({
          ...buildTicketRequest({ title: `printer ${word}`, requesterEmail: requester, status: STATUSES[spec.status] }),
          ...(cc.length > 0 && { ccEmails: cc.map((email) => email.toUpperCase()) }),
        });
      expect(created.status).toBe(201);
      if (cc.length > 0) expect(created.body.ccEmails).toEqual(cc);
      const ticket: Ticket = { id: created.body.id as number, requester, cc, comments: [] };
      for (const internal of spec.comments) {
        const visibility = internal ? 'INTERNAL' : 'PUBLIC';
        const comment = await testApp.http
          .post(`/api/v2/tickets/${ticket.id}/comments`)
          .set(headers)
          .send({ body: `note ${word}`, visibility });
        expect(comment.status).toBe(201);
        ticket.comments.push({ id: comment.body.id as number, visibility });
      }
      tickets.push(ticket);
    }
    return { world, tickets, word };
  }

  const shapes = fc.record({
    shares: fc.array(fc.tuple(fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 2 }),
    tickets: fc.array(
      fc.record({
        requester: fc.nat(20),
        upper: fc.boolean(),
        status: fc.nat(4),
        comments: fc.array(fc.boolean(), { maxLength: 2 }),
        cc: fc.array(fc.nat(20), { maxLength: 2 }),
      }),
      { minLength: 1, maxLength: 7 },
    ),
  });

  it('answers every read path with exactly what the model says each requester sees', async () => {
    await fc.assert(
      fc.asyncProperty(shapes, async (shape) => {
        const since = new Date(Date.now() - 1000).toISOString();
        const { world, tickets, word } = await build(shape);
        // The feed numbers changes after they commit: wait until the agent's walk holds every change of this world.
        const ids = new Set(tickets.map((t) => t.id));
        const written = tickets.length + tickets.reduce((n, t) => n + t.comments.length, 0);
        for (let tries = 0; (await walkFeed(await agent(), since)).filter((item) => ids.has(item.ticketId)).length < written; tries++) {
          expect(tries).toBeLessThan(100);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const missing = await testApp.http.get('/api/v2/tickets/999999999999').set(await agent());
        const missingV1 = await testApp.http.get('/api/tickets/999999999999').set(await agent());
        for (const viewer of world.people) {
          const headers = await as(viewer.replace(/^./, (c) => c.toUpperCase()));
          const visible = tickets.filter((ticket) => world.sees(viewer, ticket));
          const expected = visible.map((t) => t.id).sort((a, b) => a - b);

          // v2 pages walked to the end, with their total.
          const walked: number[] = [];
          let cursor: string | null = null;
          do {
            const page = await testApp.http
              .get('/api/v2/tickets')
              .query({ q: word, limit: 2, sort: 'id', ...(cursor && { cursor }) })
              .set(headers);
            expect(page.status).toBe(200);
            expect(page.body.total).toBe(expected.length);
            walked.push(...(page.body.items as Array<{ id: number }>).map((t) => t.id));
            cursor = page.body.nextCursor as string | null;
          } while (cursor);
          expect(walked).toEqual(expected);

          // v1 unpaged (streamed) and paged with X-Total-Count, filtered by status.
          const streamed = await testApp.http.get('/api/tickets').set(headers);
          expect(streamed.status).toBe(200);
          const mine = (streamed.body as Array<{ id: number }>).map((t) => t.id).filter((id) => tickets.some((t) => t.id === id));
          expect(mine.sort((a, b) => a - b)).toEqual(expected);
          const open = await testApp.http.get('/api/tickets').query({ status: 'OPEN', q: word, limit: 100 }).set(headers);
          const openExpected = visible.filter((t) => shape.tickets[tickets.indexOf(t)].status === 0).length;
          expect(open.headers['x-total-count']).toBe(String(openExpected));
          // A prefix search too.
          const prefixed = await testApp.http
            .get('/api/v2/tickets')
            .query({ q: `${word.slice(0, 7)}* printer`, limit: 100 })
            .set(headers);
          expect((prefixed.body.items as Array<{ id: number }>).map((t) => t.id).sort((a, b) => a - b)).toEqual(expected);

          // The change feed: the changes of the tickets they see, without those of internal comments.
          const feed = await walkFeed(headers, since);
          const seen = feed.map((item) => `${item.ticketId}:${item.eventType}:${item.data.comment?.id ?? ''}`).sort();
          const expectedFeed = visible
            .flatMap((t) => [
              `${t.id}:CREATED:`,
              ...t.comments.filter((c) => c.visibility === 'PUBLIC').map((c) => `${t.id}:COMMENT_ADDED:${c.id}`),
            ])
            .sort();
          expect(seen).toEqual(expectedFeed);

          for (const ticket of tickets) {
            const v2 = await testApp.http.get(`/api/v2/tickets/${ticket.id}`).set(headers);
            const v1Comments = await testApp.http.get(`/api/tickets/${ticket.id}/comments`).set(headers);
            const history = await testApp.http.get(`/api/v2/tickets/${ticket.id}/history`).query({ limit: 100 }).set(headers);
            const sla = await testApp.http.get(`/api/tickets/${ticket.id}/transitions`).set(headers);
            if (!world.sees(viewer, ticket)) {
              // Exactly a missing ticket's answer, but for its id.
              expect([v2.status, v2.body.detail]).toEqual([404, `Ticket not found with id: ${ticket.id}`]);
              expect(Object.keys(v2.body).sort()).toEqual(Object.keys(missing.body).sort());
              expect([v1Comments.status, v1Comments.body.message]).toEqual([404, `Ticket not found with id: ${ticket.id}`]);
              expect(Object.keys(v1Comments.body).sort()).toEqual(Object.keys(missingV1.body).sort());
              expect([history.status, sla.status]).toEqual([404, 404]);
              continue;
            }
            expect(v2.status).toBe(200);
            expect(v2.body.ccEmails).toEqual(ticket.cc);
            const publicIds = ticket.comments.filter((c) => c.visibility === 'PUBLIC').map((c) => c.id);
            expect((v1Comments.body as Array<{ id: number }>).map((c) => c.id)).toEqual(publicIds);
            const commented = (history.body.items as Array<{ action: string; changes: { comment?: { to: number } } }>)
              .filter((entry) => entry.action === 'COMMENTED')
              .map((entry) => entry.changes.comment!.to);
            expect(commented).toEqual(publicIds);
            for (const comment of ticket.comments) {
              const one = await testApp.http.get(`/api/v2/tickets/${ticket.id}/comments/${comment.id}`).set(headers);
              expect(one.status).toBe(comment.visibility === 'PUBLIC' ? 200 : 404);
            }
            expect(sla.status).toBe(200);
          }
        }
      }),
      { numRuns: 6 },
    );
    // Six worlds of people, tickets and comments, each read on every path: under the parallel suites this takes
    // longer than the 30 s meant for a request-sized test.
  }, 120_000);

  it('lets a requester write only what is theirs to write', async () => {
    await fc.assert(
      fc.asyncProperty(shapes, async (shape) => {
        const { world, tickets } = await build(shape);
        for (const viewer of world.people) {
          const headers = await as(viewer);
          const other = world.people.find((person) => person !== viewer)!;
          expect(
            (
              await testApp.http
                .post('/api/v2/tickets')
                .set(headers)
                .send(buildTicketRequest({ requesterEmail: other }))
            ).status,
          ).toBe(403);
          const own = await testApp.http
            .post('/api/tickets')
            .set(headers)
            .send(buildTicketRequest({ requesterEmail: viewer.toUpperCase(), assignedTo: undefined }));
          expect(own.status).toBe(201);
          // OPEN and unassigned only: the desk assigns and moves tickets.
          const assigned = await testApp.http
            .post('/api/tickets')
            .set(headers)
            .send(buildTicketRequest({ requesterEmail: viewer }));
          expect(assigned.status).toBe(403);
          const closed = await testApp.http
            .post('/api/tickets')
            .set(headers)
            .send(buildTicketRequest({ requesterEmail: viewer, assignedTo: undefined, status: 'CLOSED' }));
          expect(closed.status).toBe(403);
          expect(
            (
              await testApp.http
                .put(`/api/tickets/${own.body.id}`)
                .set(headers)
                .send(buildTicketRequest({ requesterEmail: viewer }))
            ).status,
          ).toBe(403);
          expect((await testApp.http.delete(`/api/tickets/${own.body.id}`).set(headers)).status).toBe(403);
          expect((await testApp.http.patch(`/api/v2/tickets/${own.body.id}`).set(headers).send({ priority: 'LOW' })).status).toBe(403);
          for (const ticket of tickets) {
            const comment = await testApp.http.post(`/api/v2/tickets/${ticket.id}/comments`).set(headers).send({ body: 'any news?' });
            const internal = await testApp.http
              .post(`/api/v2/tickets/${ticket.id}/comments`)
              .set(headers)
              .send({ body: 'hm', visibility: 'INTERNAL' });
            const resolve = await testApp.http.patch(`/api/v2/tickets/${ticket.id}`).set(headers).send({ status: 'RESOLVED' });
            if (!world.sees(viewer, ticket)) {
              expect([comment.status, internal.status, resolve.status]).toEqual([404, 404, 404]);
              continue;
            }
            expect(comment.status).toBe(world.commentsOn(viewer, ticket) ? 201 : 403);
            expect(internal.status).toBe(403);
            const owner = ticket.requester.toLowerCase() === viewer;
            // RESOLVED is reachable from every status under the default (free) workflow.
            expect(resolve.status).toBe(owner ? 200 : 403);
          }
        }
        // Nothing a refused write tried is there: every comment the agent reads is one of the world's or a 201 above.
        const agentHeaders = await agent();
        for (const ticket of tickets) {
          const comments = await testApp.http.get(`/api/tickets/${ticket.id}/comments`).set(agentHeaders);
          expect((comments.body as Array<{ visibility: string; body: string }>).filter((c) => c.body === 'hm')).toEqual([]);
        }
      }),
      { numRuns: 4 },
    );
    // Four worlds, each written on every path: longer than the 30 s meant for a request-sized test.
  }, 120_000);

  it('refuses a requester token without a verified address in its email claim, and keeps it off other resources', async () => {
    const bad = async (claims: Record<string, unknown>) =>
      (
        await testApp.http
          .get('/api/v2/tickets')
          .set({ Authorization: `Bearer ${await issuer.token({ claims: { scope: 'tickets.requester', ...claims } })}` })
      ).status;
    expect(await bad({})).toBe(401);
    expect(await bad({ email: 'not an address' })).toBe(401);
    expect(await bad({ email: 'ann@example.com', email_verified: false })).toBe(401);
    expect(await bad({ email: 'ann@example.com', email_verified: true })).toBe(200);
    const headers = await as('ann@example.com');
    for (const path of ['/api/v2/organizations', '/api/v2/webhooks']) {
      expect((await testApp.http.get(path).set(headers)).status).toBe(403);
    }
  });

  it('shows participants (ccEmails) in v2 only, lets agents alone set them, and records their changes', async () => {
    const headers = await agent();
    const ann = `ann@${unique()}.test`;
    const created = await testApp.http
      .post('/api/v2/tickets')
      .set(headers)
      .send({ ...buildTicketRequest({ requesterEmail: ann }), ccEmails: ['Bob@Example.com', 'bob@example.com', 'carl@example.com'] });
    expect(created.body.ccEmails).toEqual(['bob@example.com', 'carl@example.com']);
    const v1 = await testApp.http.get(`/api/tickets/${created.body.id}`).set(headers);
    expect(v1.body).not.toHaveProperty('ccEmails');
    const tooMany = Array.from({ length: 21 }, (_, i) => `p${i}@example.com`);
    for (const ccEmails of [tooMany, ['not an address'], 'bob@example.com']) {
      const refused = await testApp.http.patch(`/api/v2/tickets/${created.body.id}`).set(headers).send({ ccEmails });
      expect([refused.status, refused.body.errors?.[0]?.field]).toEqual([400, 'ccEmails']);
    }
    const patched = await testApp.http
      .patch(`/api/v2/tickets/${created.body.id}`)
      .set(headers)
      .send({ ccEmails: ['dan@example.com'] });
    expect(patched.body.ccEmails).toEqual(['dan@example.com']);
    const kept = await testApp.http.patch(`/api/v2/tickets/${created.body.id}`).set(headers).send({ priority: 'LOW' });
    expect(kept.body.ccEmails).toEqual(['dan@example.com']);
    // A v1 PUT knows nothing of participants and keeps them; a v2 PUT replaces them (absent: none).
    await testApp.http
      .put(`/api/tickets/${created.body.id}`)
      .set(headers)
      .send(buildTicketRequest({ requesterEmail: ann }))
      .expect(200);
    expect((await testApp.http.get(`/api/v2/tickets/${created.body.id}`).set(headers)).body.ccEmails).toEqual(['dan@example.com']);
    const replaced = await testApp.http
      .put(`/api/v2/tickets/${created.body.id}`)
      .set(headers)
      .send(buildTicketRequest({ requesterEmail: ann }));
    expect(replaced.body.ccEmails).toEqual([]);
    // v1 knows no participants: its history does not show them.
    const v1History = await testApp.http.get(`/api/tickets/${created.body.id}/history`).set(headers);
    expect((v1History.body as Array<{ changes: object }>).filter((entry) => 'ccEmails' in entry.changes)).toEqual([]);
    const history = await testApp.http.get(`/api/v2/tickets/${created.body.id}/history`).set(headers);
    const changes = (history.body.items as Array<{ changes: { ccEmails?: unknown } }>)
      .map((entry) => entry.changes.ccEmails)
      .filter(Boolean);
    expect(changes).toEqual([
      { from: [], to: ['bob@example.com', 'carl@example.com'] },
      { from: ['bob@example.com', 'carl@example.com'], to: ['dan@example.com'] },
      { from: ['dan@example.com'], to: [] },
    ]);
    const requester = await as(ann);
    const own = await testApp.http
      .post('/api/v2/tickets')
      .set(requester)
      .send({ ...buildTicketRequest({ requesterEmail: ann, assignedTo: undefined }), ccEmails: ['x@example.com'] });
    expect(own.status).toBe(403);
    const cc = await testApp.http
      .patch(`/api/v2/tickets/${created.body.id}`)
      .set(requester)
      .send({ ccEmails: ['x@example.com'] });
    expect(cc.status).toBe(403);
  });

  it("keeps an internal comment's attachments, their history and their changes from a requester, on v1 and v2, also by ETag and in the stream", async () => {
    const headers = await agent();
    const ann = `ann@${unique()}.test`;
    const requester = await as(ann);
    const since = new Date(Date.now() - 1000).toISOString();
    const ticket = (
      await testApp.http
        .post('/api/tickets')
        .set(headers)
        .send(buildTicketRequest({ requesterEmail: ann }))
    ).body as { id: number };
    const base = `/api/v2/tickets/${ticket.id}/attachments`;
    const upload = async (name: string, as: Record<string, string>) =>
      (
        await testApp.http
          .post(base)
          .set(as)
          .attach('file', Buffer.from(`${name} bytes`), { filename: name, contentType: 'text/plain' })
      ).body as {
        id: number;
      };
    const secret = await upload('secret.txt', headers);
    const loose = await upload('draft.txt', headers);
    const open = await upload('screenshot.txt', requester);
    // Until a public comment names it, no attachment reaches a requester (it may be an internal note's); nor may they
    // name one they did not upload.
    expect((await testApp.http.get(`${base}/${open.id}`).set(requester)).status).toBe(404);
    const borrowed = await testApp.http
      .post(`/api/tickets/${ticket.id}/comments`)
      .set(requester)
      .send({ body: 'this?', attachmentIds: [loose.id] });
    expect(borrowed.status).toBe(400);
    const note = await testApp.http
      .post(`/api/v2/tickets/${ticket.id}/comments`)
      .set(headers)
      .send({ body: 'see log', visibility: 'INTERNAL', attachmentIds: [secret.id] });
    expect(note.status).toBe(201);
    const reply = await testApp.http
      .post(`/api/tickets/${ticket.id}/comments`)
      .set(requester)
      .send({ body: 'here', author: 'Support', attachmentIds: [open.id] });
    expect(reply.status).toBe(201);
    // A requester's comment is signed with their address, whatever author it names.
    expect(reply.body.author).toBe(ann);

    for (const prefix of ['/api/tickets', '/api/v2/tickets']) {
      const listed = await testApp.http.get(`${prefix}/${ticket.id}/attachments`).set(requester);
      const items = (Array.isArray(listed.body) ? listed.body : listed.body.items) as Array<{ id: number }>;
      expect(items.map((a) => a.id)).toEqual([open.id]);
      expect((await testApp.http.get(`${prefix}/${ticket.id}/attachments/${secret.id}`).set(requester)).status).toBe(404);
      expect((await testApp.http.get(`${prefix}/${ticket.id}/attachments/${secret.id}/content`).set(requester)).status).toBe(404);
      expect((await testApp.http.get(`${prefix}/${ticket.id}/attachments/${open.id}/content`).set(requester)).text).toBe(
        'screenshot.txt bytes',
      );
    }
    const history = await testApp.http.get(`/api/tickets/${ticket.id}/history`).set(requester);
    const attached = (history.body as Array<{ action: string; changes: { attachment?: { to: number } } }>)
      .filter((entry) => entry.action === 'ATTACHED')
      .map((entry) => entry.changes.attachment!.to);
    expect(attached).toEqual([open.id]);
    // The agent sees all of it.
    expect(((await testApp.http.get(base).set(headers)).body.items as unknown[]).length).toBe(3);
    expect((await testApp.http.get(`${base}/${loose.id}`).set(requester)).status).toBe(404);

    // A conditional GET answers 304 to the requester who may see the ticket, and the 404 of a missing one to another.
    const read = await testApp.http.get(`/api/tickets/${ticket.id}`).set(requester);
    const etag = read.headers.etag as string;
    expect((await testApp.http.get(`/api/tickets/${ticket.id}`).set(requester).set('If-None-Match', etag)).status).toBe(304);
    expect(
      (
        await testApp.http
          .get(`/api/tickets/${ticket.id}`)
          .set(await as(`bob@${unique()}.test`))
          .set('If-None-Match', etag)
      ).status,
    ).toBe(404);

    // The stream (Server-Sent Events) from before the ticket: its changes but the internal comment and its attachment.
    const types = new Set<string>();
    for (let tries = 0; !types.has('COMMENT_ADDED') && tries < 50; tries++) {
      for (const item of await walkFeed(requester, since)) types.add(`${item.eventType}`);
      if (!types.has('COMMENT_ADDED')) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Streams of this app end after 2 s (CHANGES_STREAM_MAX_SECONDS), so the whole stream is read here.
    const streamed = await testApp.http
      .get('/api/v2/changes')
      .query({ since })
      .set(requester)
      .set('Accept', 'text/event-stream')
      .buffer(true)
      .parse((response, done) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () => done(null, text));
      });
    expect(streamed.status).toBe(200);
    const events = [...(streamed.body as string).matchAll(/^data: (.*)$/gm)].map(
      (match) => JSON.parse(match[1]) as FeedItem & { data: { attachment?: { id: number } } },
    );
    expect(events.map((event) => [event.eventType, event.data.comment?.id ?? event.data.attachment?.id ?? null])).toEqual([
      ['CREATED', null],
      ['ATTACHMENT_ADDED', open.id],
      ['COMMENT_ADDED', reply.body.id],
    ]);
  });

  it('refuses a domain or a member that another organization lists (409), and applies a change of sharing at the next request', async () => {
    const run = unique();
    const headers = await agent();
    const first = await testApp.http
      .post('/api/v2/organizations')
      .set(headers)
      .send({ name: 'First', domains: [`${run}.test`], members: [`x@${run}.other`] });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      domains: [`${run}.test`],
      members: [`x@${run}.other`],
      sharedTickets: false,
      sharedComments: false,
    });
    const clash = await testApp.http
      .post('/api/v2/organizations')
      .set(headers)
      .send({ name: 'Second', domains: [`${run.toUpperCase()}.test`] });
    expect(clash.status).toBe(409);
    expect(clash.body.detail).toContain(`${run}.test`);
    const invalid = await testApp.http
      .post('/api/v2/organizations')
      .set(headers)
      .send({ name: 'Third', domains: ['not a domain'], members: ['nope'] });
    expect(invalid.status).toBe(400);

    const ann = `ann@${run}.test`;
    const bob = `bob@${run}.test`;
    const bobs = await testApp.http
      .post('/api/tickets')
      .set(headers)
      .send(buildTicketRequest({ requesterEmail: bob }));
    expect((await testApp.http.get(`/api/tickets/${bobs.body.id}`).set(await as(ann))).status).toBe(404);
    expect((await testApp.http.patch(`/api/v2/organizations/${first.body.id}`).set(headers).send({ sharedTickets: true })).status).toBe(
      200,
    );
    expect((await testApp.http.get(`/api/tickets/${bobs.body.id}`).set(await as(ann))).status).toBe(200);
    expect((await testApp.http.delete(`/api/v2/organizations/${first.body.id}`).set(headers)).status).toBe(204);
    expect((await testApp.http.get(`/api/tickets/${bobs.body.id}`).set(await as(ann))).status).toBe(404);
  });
});

describe('Requesters and SLA clocks', () => {
  let issuer: TestIssuer;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    issuer = await TestIssuer.start();
    await issuer.addKey('rsa-1', 'RS256');
    Object.assign(env, {
      [`${JWT}ISSUERURI`]: issuer.url,
      [`${JWT}AUDIENCES`]: 'ticket-service',
      ...slaPolicyEnv({ HIGH: { firstResponse: 'PT1H', resolution: 'PT8H' } }),
    });
  });
  const testApp = useTestApp({ env });
  afterAll(() => issuer.stop());

  it("never takes a requester's or a participant's comment for the desk's first response", async () => {
    const agent = { Authorization: `Bearer ${await issuer.token({ claims: { scope: AGENT } })}` };
    const as = async (email: string) => ({
      Authorization: `Bearer ${await issuer.token({ claims: { scope: 'tickets.requester', email, sub: `user-${email}` } })}`,
    });
    const run = randomBytes(4).toString('hex');
    const [ann, bob] = [`ann@${run}.test`, `bob@${run}.test`];
    const created = await testApp.http
      .post('/api/v2/tickets')
      .set(agent)
      .send({ ...buildTicketRequest({ requesterEmail: ann, priority: 'HIGH' }), ccEmails: [bob] });
    const firstResponse = async () =>
      (
        (await testApp.http.get(`/api/v2/tickets/${created.body.id}/sla`).set(agent)).body.metrics as Array<{
          name: string;
          completedCycles: unknown[];
        }>
      ).find((metric) => metric.name === 'firstResponse')!.completedCycles;
    for (const person of [ann, bob]) {
      const comment = await testApp.http
        .post(`/api/v2/tickets/${created.body.id}/comments`)
        .set(await as(person))
        .send({ body: 'Any news?' });
      expect(comment.status).toBe(201);
    }
    expect(await firstResponse()).toEqual([]);
    await testApp.http.post(`/api/v2/tickets/${created.body.id}/comments`).set(agent).send({ body: 'On it', author: 'desk' }).expect(201);
    expect(await firstResponse()).toHaveLength(1);
  });
});
