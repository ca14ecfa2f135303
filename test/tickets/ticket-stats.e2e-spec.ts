import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { useOwnDatabase } from '../support/database.js';
import { expectProblem } from '../support/problem-json.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { useTestIssuer } from '../support/test-issuer.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { jest } from '@jest/globals';
import { TicketsRepository } from '../../src/tickets/tickets.repository.js';
import { STATS_READ_MAX } from '../../src/tickets/stats/ticket-stats.js';

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

  it('counts by a tag, a field or a time at most 50,000 matches, and by the ticket columns any number', async () => {
    // The filters made to match more than the bound: the count (with a time key, the range's) is the first statement of such a request.
    const spy = jest.spyOn(TicketsRepository.prototype, 'count').mockResolvedValue(STATS_READ_MAX + 1);
    const ranged = jest
      .spyOn(TicketsRepository.prototype, 'timeRange')
      .mockResolvedValue({ total: STATS_READ_MAX + 1, from: new Date(), to: new Date() });
    try {
      for (const groupBy of ['tag', 'field.category', 'createdAt:month', 'status,tag']) {
        const body = expectProblem(asHttpResponse(await testApp.http.get(`/api/v2/tickets/stats?groupBy=${groupBy}`)), 400);
        expect([groupBy, body.errors.map((error: Json) => error.field)]).toEqual([groupBy, ['groupBy']]);
        expect(JSON.stringify(body.errors)).toContain(`the filters match ${STATS_READ_MAX + 1} tickets, more than ${STATS_READ_MAX}`);
      }
      expect((await stats('groupBy=status,priority')).total).toBe(STATS_READ_MAX + 1);
    } finally {
      spy.mockRestore();
      ranged.mockRestore();
    }
    expect((await stats(`groupBy=tag&anyTags=${tag}`)).total).toBe(tickets.length);
  });

  describe('by day, week and month in a time zone', () => {
    const zone = 'Europe/Berlin';
    const timeTag = `stats-time-${randomBytes(3).toString('hex')}`;
    // Around Berlin's change to summer time (2024-03-31 02:00 → 03:00) and month ends; created with these times by an import.
    const created = [
      '2024-03-29T23:30:00Z', // 2024-03-30 00:30 local
      '2024-03-30T22:59:59Z', // 2024-03-30 23:59:59 local
      '2024-03-30T23:00:00Z', // 2024-03-31 00:00 local, a Sunday
      '2024-03-31T21:59:59Z', // 2024-03-31 23:59:59 local (summer time)
      '2024-03-31T22:00:00Z', // 2024-04-01 00:00 local, a Monday
      '2024-04-30T21:59:00Z', // 2024-04-30 23:59 local
      '2024-04-30T22:00:00Z', // 2024-05-01 00:00 local
    ];
    const localDate = (iso: string) =>
      new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(iso));

    beforeAll(async () => {
      const lines = created.map((createdAt, i) => ({
        externalId: `${timeTag}-${i}`,
        title: `Ticket ${i}`,
        description: 'Counted by its time',
        status: i % 2 === 0 ? 'RESOLVED' : 'OPEN',
        priority: 'LOW',
        requesterEmail: 'dana@example.com',
        tags: [timeTag],
        createdAt,
        ...(i % 2 === 0 && { resolvedAt: created[Math.min(i + 2, created.length - 1)], updatedAt: created[created.length - 1] }),
      }));
      const job = (
        await testApp.http
          .post('/api/v2/imports')
          .set('Content-Type', 'application/x-ndjson')
          .send(lines.map((line) => JSON.stringify(line)).join('\n'))
          .expect(202)
      ).body;
      for (let finished = false; !finished; await new Promise((resolve) => setTimeout(resolve, 100))) {
        const { status } = (await testApp.http.get(`/api/v2/jobs/${job.id}`).expect(200)).body;
        expect(['queued', 'running', 'succeeded']).toContain(status);
        finished = status === 'succeeded';
      }
    });

    it("counts by the local day, week and month, each bucket the list's total between its local starts", async () => {
      const days = await stats(`groupBy=createdAt:day&zone=${encodeURIComponent(zone)}&tags=${timeTag}`);
      expect(days.groups).toEqual([
        { key: { 'createdAt:day': '2024-03-30' }, count: 2 },
        { key: { 'createdAt:day': '2024-03-31' }, count: 2 },
        { key: { 'createdAt:day': '2024-04-01' }, count: 1 },
        { key: { 'createdAt:day': '2024-04-30' }, count: 1 },
        { key: { 'createdAt:day': '2024-05-01' }, count: 1 },
      ]);
      expect(days.groups.map((group: Json) => group.key['createdAt:day'])).toEqual([...new Set(created.map(localDate))]);
      // Each day's count is the list's total from its local midnight to the next (the summer-time day is 23 hours long).
      const midnight = (date: string) => {
        const [year, month, day] = date.split('-').map(Number);
        const guess = Date.UTC(year, month - 1, day);
        const offset = (at: number) => {
          const local = new Intl.DateTimeFormat('en-US', {
            timeZone: zone,
            hourCycle: 'h23',
            year: 'numeric',
            month: 'numeric',
            day: 'numeric',
            hour: 'numeric',
            minute: 'numeric',
          }).formatToParts(new Date(at));
          const part = (type: string) => Number(local.find((item) => item.type === type)!.value);
          return Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute')) - at;
        };
        return new Date(guess - offset(guess - offset(guess))).toISOString();
      };
      for (const group of days.groups) {
        const day = group.key['createdAt:day'] as string;
        const next = new Date(Date.parse(`${day}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
        const range = `createdAfter=${encodeURIComponent(midnight(day))}&createdBefore=${encodeURIComponent(midnight(next))}`;
        expect([day, await total(`tags=${timeTag}&${range}`)]).toEqual([day, group.count]);
      }
      expect(midnight('2024-03-31')).toBe('2024-03-30T23:00:00.000Z');
      expect(midnight('2024-04-01')).toBe('2024-03-31T22:00:00.000Z');

      const weeks = await stats(`groupBy=createdAt:week,status&zone=${encodeURIComponent(zone)}&tags=${timeTag}`);
      expect(weeks.groups.map((group: Json) => [group.key['createdAt:week'], group.key.status, group.count])).toEqual([
        ['2024-03-25', 'OPEN', 2],
        ['2024-03-25', 'RESOLVED', 2],
        ['2024-04-01', 'RESOLVED', 1],
        ['2024-04-29', 'OPEN', 1],
        ['2024-04-29', 'RESOLVED', 1],
      ]);
      const months = await stats(`groupBy=resolvedAt:month&zone=${encodeURIComponent(zone)}&tags=${timeTag}`);
      expect(months.groups).toEqual([
        { key: { 'resolvedAt:month': '2024-03' }, count: 1 },
        { key: { 'resolvedAt:month': '2024-04' }, count: 1 },
        { key: { 'resolvedAt:month': '2024-05' }, count: 2 },
        { key: { 'resolvedAt:month': null }, count: 3 },
      ]);
      // Tickets none of which has the time are one group without it; no match, no group.
      const unresolved = await stats(`groupBy=resolvedAt:week&status=OPEN&tags=${timeTag}`);
      expect([unresolved.total, unresolved.groups]).toEqual([3, [{ key: { 'resolvedAt:week': null }, count: 3 }]]);
      expect((await stats(`groupBy=createdAt:day,status&tags=${timeTag}-none`)).groups).toEqual([]);
      // In UTC the same tickets fall on other days.
      const utc = await stats(`groupBy=createdAt:day&tags=${timeTag}`);
      expect(utc.groups.map((group: Json) => group.key['createdAt:day'])).toEqual([...new Set(created.map((iso) => iso.slice(0, 10)))]);
    });

    it('refuses an unknown zone, two keys of time, an unknown unit, and more than 1,000 buckets', async () => {
      const refused = async (query: string, field: string) => {
        const body = expectProblem(asHttpResponse(await testApp.http.get(`/api/v2/tickets/stats?${query}`)), 400);
        expect((body.errors as Json[]).map((error) => error.field)).toEqual([field]);
      };
      await refused('groupBy=createdAt:day&zone=Mars/Olympus', 'zone');
      await refused('groupBy=createdAt:day,resolvedAt:day', 'groupBy');
      await refused('groupBy=createdAt:year', 'groupBy');
      const line = {
        externalId: `${timeTag}-old`,
        title: 'Old',
        description: 'From long ago',
        status: 'OPEN',
        priority: 'LOW',
        requesterEmail: 'dana@example.com',
        tags: [`${timeTag}-old`],
        createdAt: '2019-01-01T00:00:00Z',
      };
      const job = (
        await testApp.http.post('/api/v2/imports').set('Content-Type', 'application/x-ndjson').send(JSON.stringify(line)).expect(202)
      ).body;
      for (let finished = false; !finished; await new Promise((resolve) => setTimeout(resolve, 100))) {
        const { status } = (await testApp.http.get(`/api/v2/jobs/${job.id}`).expect(200)).body;
        expect(['queued', 'running', 'succeeded']).toContain(status);
        finished = status === 'succeeded';
      }
      await refused(`groupBy=createdAt:day&anyTags=${timeTag},${timeTag}-old`, 'groupBy');
      expect((await stats(`groupBy=createdAt:month&anyTags=${timeTag},${timeTag}-old`)).total).toBe(created.length + 1);
    });
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
      // Nor the SLA figures, whose parameters are refused to them as early.
      expectProblem(asHttpResponse(await secured.http.get('/api/v2/tickets/stats/sla?sort=id').set(requester)), 403);
    });
  });
});
