import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { connectToDatabase, useOwnDatabase } from '../support/database.js';
import { expectProblem } from '../support/problem-json.js';
import { slaPolicyEnv } from '../support/sla-policy.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

type Json = Record<string, any>;

// Its own: it rewrites its tickets' clocks.
const database = useOwnDatabase('sla_figures');
const PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];
const GOAL_MS = 3_600_000;

/** One clock as the property sets it: stopped or running or paused, its business time, and whether a running one is past its breach. */
interface ClockState {
  state: 'stopped' | 'running' | 'paused';
  elapsedMs: number;
  pastBreach: boolean;
}

/** GET /api/v2/tickets/stats/sla: the SLA figures of a list's matches, against a model of their clocks. */
describe('SLA figures', () => {
  const testApp = useTestApp({
    env: {
      DB_DATABASE: database,
      ...slaPolicyEnv({
        LOW: { firstResponse: 'PT1H', resolution: 'PT1H' },
        MEDIUM: { firstResponse: 'PT1H', resolution: 'PT1H' },
        HIGH: { firstResponse: 'PT1H', resolution: 'PT1H' },
        CRITICAL: { firstResponse: 'PT1H', resolution: 'PT1H' },
      }),
    },
  });
  const tag = `figures-${randomBytes(3).toString('hex')}`;
  const ids: number[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 10; i++) {
      const body = { ...buildTicketRequest({ priority: PRIORITIES[i % 4] }), tags: [tag] };
      ids.push((await testApp.http.post('/api/v2/tickets').send(body).expect(201)).body.id);
    }
    // One ticket outside the filter, whose clocks must not count.
    await testApp.http
      .post('/api/v2/tickets')
      .send(buildTicketRequest({ priority: 'LOW' }))
      .expect(201);
  });

  /** The model: each ticket's clocks of a metric as one, the nearest-rank median and 90th percentile of the completed ones. */
  const model = (clocks: Array<{ ticketId: number; priority: string; metric: string; clock: ClockState }>) => {
    const perTicket = new Map<string, { priority: string; metric: string; elapsed: number; completed: boolean; breached: boolean }>();
    for (const { ticketId, priority, metric, clock } of clocks) {
      const key = `${metric}/${priority}/${ticketId}`;
      const entry = perTicket.get(key) ?? { priority, metric, elapsed: 0, completed: true, breached: false };
      entry.elapsed += clock.elapsedMs;
      entry.completed &&= clock.state === 'stopped';
      entry.breached ||= clock.elapsedMs >= GOAL_MS || (clock.state === 'running' && clock.pastBreach);
      perTicket.set(key, entry);
    }
    const rank = (sorted: number[], share: number) => (sorted.length === 0 ? null : sorted[Math.ceil(share * sorted.length) - 1]);
    const figures = [];
    for (const metric of ['firstResponse', 'resolution'])
      for (const priority of PRIORITIES) {
        const of = [...perTicket.values()].filter((entry) => entry.metric === metric && entry.priority === priority);
        if (of.length === 0) continue;
        const completed = of.filter((entry) => entry.completed);
        const met = completed.filter((entry) => !entry.breached).length;
        const times = completed.map((entry) => entry.elapsed).sort((a, b) => a - b);
        figures.push({
          metric,
          priority,
          tickets: of.length,
          completed: completed.length,
          met,
          breached: of.filter((entry) => entry.breached).length,
          metShare: completed.length === 0 ? null : Math.round((met / completed.length) * 1000) / 1000,
          medianMs: rank(times, 0.5),
          p90Ms: rank(times, 0.9),
        });
      }
    return figures;
  };

  it('counts, for each metric and priority, the tickets that completed, met and breached it, and the median and p90 of their times (property)', async () => {
    const db = await connectToDatabase({ database });
    const clock = fc.record<ClockState>({
      state: fc.constantFrom('stopped', 'running', 'paused'),
      elapsedMs: fc.integer({ min: 0, max: 2 * GOAL_MS }),
      pastBreach: fc.boolean(),
    });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              firstResponse: fc.array(clock, { minLength: 1, maxLength: 2 }),
              resolution: fc.array(clock, { minLength: 1, maxLength: 3 }),
            }),
            {
              minLength: ids.length,
              maxLength: ids.length,
            },
          ),
          async (states) => {
            const now = Date.now();
            const at = (ms: number) => new Date(ms);
            const written: Array<{ ticketId: number; priority: string; metric: string; clock: ClockState }> = [];
            await db.query('DELETE FROM ticket_sla_clocks WHERE ticket_id IN (?)', [ids]);
            for (const [i, ticketId] of ids.entries()) {
              for (const metric of ['firstResponse', 'resolution'] as const) {
                for (const [cycle, state] of states[i][metric].entries()) {
                  await db.query(
                    `INSERT INTO ticket_sla_clocks (ticket_id, metric, cycle, calendar, goal, goal_ms, started_at, stopped_at, elapsed_ms, running_since, breach_at)
                     VALUES (?, ?, ?, 'always', 'PT1H', ?, ?, ?, ?, ?, ?)`,
                    [
                      ticketId,
                      metric,
                      cycle + 1,
                      GOAL_MS,
                      at(now - 10 * GOAL_MS),
                      state.state === 'stopped' ? at(now - GOAL_MS) : null,
                      state.elapsedMs,
                      state.state === 'running' ? at(now - 60_000) : null,
                      state.state === 'running' ? at(state.pastBreach ? now - 1000 : now + GOAL_MS) : null,
                    ],
                  );
                  written.push({ ticketId, priority: PRIORITIES[i % 4], metric, clock: state });
                }
              }
            }
            const body = (await testApp.http.get(`/api/v2/tickets/stats/sla?tags=${tag}`).expect(200)).body;
            expect(body.total).toBe(ids.length);
            expect(body.figures).toEqual(model(written));
          },
        ),
        { numRuns: 12 },
      );
    } finally {
      await db.end();
    }
  });

  it('follows the clocks a real ticket runs: an agent’s answer completes its first response within the goal', async () => {
    const id = (
      await testApp.http
        .post('/api/v2/tickets')
        .send({ ...buildTicketRequest({ priority: 'HIGH' }), tags: [`${tag}-live`] })
        .expect(201)
    ).body.id;
    await testApp.http.post(`/api/v2/tickets/${id}/comments`).send({ body: 'On it.', author: 'agent-kim' }).expect(201);
    const body = (await testApp.http.get(`/api/v2/tickets/stats/sla?tags=${tag}-live`).expect(200)).body;
    expect(body.total).toBe(1);
    const [firstResponse, resolution] = body.figures;
    expect(firstResponse).toMatchObject({
      metric: 'firstResponse',
      priority: 'HIGH',
      tickets: 1,
      completed: 1,
      met: 1,
      breached: 0,
      metShare: 1,
    });
    expect(firstResponse.medianMs).toBeLessThan(GOAL_MS);
    expect(resolution).toMatchObject({
      metric: 'resolution',
      priority: 'HIGH',
      tickets: 1,
      completed: 0,
      met: 0,
      metShare: null,
      medianMs: null,
    });
  });

  it('refuses a sort or page parameter and an unknown filter', async () => {
    expect(expectProblem(asHttpResponse(await testApp.http.get('/api/v2/tickets/stats/sla?limit=5')), 400).errors[0].field).toBe('limit');
    expectProblem(asHttpResponse(await testApp.http.get('/api/v2/tickets/stats/sla?colour=red')), 400);
  });

  describe('with SLA off', () => {
    const off = useTestApp({ env: { DB_DATABASE: database } });

    it('answers 404: there are no figures', async () => {
      const body: Json = expectProblem(asHttpResponse(await off.http.get('/api/v2/tickets/stats/sla')), 404);
      expect(body.detail).toBe('SLA clocks are off (SLA_ENABLED=false): there are no SLA figures');
    });
  });
});
