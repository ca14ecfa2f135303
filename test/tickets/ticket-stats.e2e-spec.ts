import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { useOwnDatabase } from '../support/database.js';
import { expectProblem } from '../support/problem-json.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { useTestIssuer } from '../support/test-issuer.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

type Json = Record<string, any>;

const STATUSES = ['OPEN', 'IN_PROGRESS', 'RESOLVED'];
const PRIORITIES = ['LOW', 'HIGH', 'CRITICAL'];

/** On a database of its own: it defines a custom field, which the worker's other suites must not see. */
const database = useOwnDatabase('ticket_stats');

/** GET /api/v2/tickets/stats: the list's matches counted by one or two keys, each count the list's total for it. */
describe('Ticket stats', () => {
  const testApp = useTestApp({ env: { DB_DATABASE: database } });
  const tag = `stats-${randomBytes(3).toString('hex')}`;
  const tickets: Json[] = [];

  const stats = async (query: string): Promise<Json> => (await testApp.http.get(`/api/v2/tickets/stats?${query}`).expect(200)).body;
  const total = async (query: string): Promise<number> =>
    (await testApp.http.get(`/api/v2/tickets?${query}&limit=1`).expect(200)).body.total;

  beforeAll(async () => {
    await testApp.http
      .post('/api/v2/fields')
      .send({ key: 'category', label: 'Category', type: 'enum', options: ['network', 'hardware'] })
      .expect(201);
    for (let i = 0; i < 18; i++) {
      const body = buildTicketRequest({
        status: STATUSES[i % 3],
        priority: PRIORITIES[(i * 7) % 3],
        assignedTo: i % 4 === 0 ? null : `desk-${i % 2}`,
        requesterEmail: `user${i}@${i % 3 === 0 ? 'Example.org' : 'example.com'}`,
        tags: [tag, ...(i % 2 === 0 ? ['even'] : []), ...(i % 5 === 0 ? ['fifth'] : [])],
        fields: i % 3 === 2 ? {} : { category: i % 2 === 0 ? 'network' : 'hardware' },
      });
      tickets.push((await testApp.http.post('/api/v2/tickets').send(body).expect(201)).body);
    }
  });

  /** The model's counts: each ticket once per value `of` gives it (null: none). */
  const model = (of: (ticket: Json) => Array<string | boolean | null>) => {
    const counts = new Map<string, number>();
    for (const ticket of tickets)
      for (const value of of(ticket)) counts.set(JSON.stringify(value), (counts.get(JSON.stringify(value)) ?? 0) + 1);
    return new Map([...counts].map(([key, count]) => [JSON.parse(key), count]));
  };
  const counted = (body: Json, key: string) => new Map(body.groups.map((group: Json) => [group.key[key], group.count]));

  it('counts by one key of each kind, as a model of the tickets does', async () => {
    const only = `anyTags=${tag}`;
    expect(counted(await stats(`groupBy=status&${only}`), 'status')).toEqual(model((ticket) => [ticket.status]));
    expect(counted(await stats(`groupBy=assignedTo&${only}`), 'assignedTo')).toEqual(model((ticket) => [ticket.assignedTo]));
    expect(counted(await stats(`groupBy=requesterDomain&${only}`), 'requesterDomain')).toEqual(
      model((ticket) => [ticket.requesterEmail.split('@')[1].toLowerCase()]),
    );
    expect(counted(await stats(`groupBy=tag&${only}`), 'tag')).toEqual(model((ticket) => ticket.tags));
    expect(counted(await stats(`groupBy=field.category&${only}`), 'field.category')).toEqual(
      model((ticket) => [ticket.fields.category ?? null]),
    );
    const body = await stats(`groupBy=status,priority&${only}`);
    expect(body.total).toBe(tickets.length);
    expect(body.truncated).toBe(false);
    expect(body.groupBy).toEqual(['status', 'priority']);
    expect(body.groups.reduce((sum: number, group: Json) => sum + group.count, 0)).toBe(tickets.length);
    const counts = body.groups.map((group: Json) => group.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });

  it("gives each group the list's total for the same filters and its key (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(STATUSES, { minLength: 1 }),
        fc.subarray(PRIORITIES, { minLength: 1 }),
        fc.boolean(),
        async (statuses, priorities, even) => {
          const filters = `anyTags=${tag}&status=${statuses.join(',')}&priority=${priorities.join(',')}${even ? '&tags=even' : ''}`;
          const body = await stats(`groupBy=status,priority&${filters}`);
          expect(body.total).toBe(await total(filters));
          for (const group of body.groups) {
            expect([group.key, group.count]).toEqual([
              group.key,
              await total(`anyTags=${tag}&status=${group.key.status}&priority=${group.key.priority}${even ? '&tags=even' : ''}`),
            ]);
          }
        },
      ),
      { numRuns: 12, seed: 3 },
    );
  });

  it('refuses a missing, unknown, repeated or third key, a number field, and the sort and page parameters', async () => {
    for (const query of [
      '',
      'groupBy=',
      'groupBy=title',
      'groupBy=status,status',
      'groupBy=status,priority,tag',
      'groupBy=field.nope',
      'groupBy=status&sort=id',
      'groupBy=status&limit=5',
      'groupBy=status&nope=1',
      'groupBy=status&status=DONE',
      'groupBy=status&groupBy=priority',
    ]) {
      expect([query, (await testApp.http.get(`/api/v2/tickets/stats?${query}`)).status]).toEqual([query, 400]);
    }
    await testApp.http.post('/api/v2/fields').send({ key: 'cost', label: 'Cost', type: 'number' }).expect(201);
    const problem = expectProblem(asHttpResponse(await testApp.http.get('/api/v2/tickets/stats?groupBy=field.cost')), 400);
    expect(problem.errors[0]).toMatchObject({ field: 'groupBy' });
  });

  describe('with tokens', () => {
    const env: Record<string, string> = { DB_DATABASE: database };
    const tokens = useTestIssuer(env);
    const secured = useTestApp({ env });

    it("counts for an agent and refuses a requester: the numbers are the desk's", async () => {
      const token = async (claims: Json) => ({ Authorization: `Bearer ${await tokens.issuer.token({ claims })}` });
      const agent = await token({ scope: 'tickets.read' });
      const requester = await token({ scope: 'tickets.requester', email: 'req@example.com', sub: 'req@example.com' });
      expect((await secured.http.get('/api/v2/tickets/stats?groupBy=status').set(agent).expect(200)).body.total).toBeGreaterThan(0);
      expectProblem(asHttpResponse(await secured.http.get('/api/v2/tickets/stats?groupBy=status').set(requester)), 403);
      // Whatever it asks: malformed parameters are no answer of theirs either.
      expectProblem(asHttpResponse(await secured.http.get('/api/v2/tickets/stats?groupBy=nope&sort=id').set(requester)), 403);
    });
  });
});
