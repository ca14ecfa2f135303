import { readFileSync, writeFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { OpenApiContract } from '../support/openapi-contract.js';
import { expectProblem } from '../support/problem-json.js';
import { slaPolicyEnv } from '../support/sla-policy.js';
import { expectSpringError } from '../support/spring-error.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { createTestApp, type TestAppHandle, useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

type Json = Record<string, any>;

const H = 3_600_000;
const MERGE_PATCH = 'application/merge-patch+json';
const at = (text: string) => Date.parse(text);
const iso = (ms: number) => new Date(ms).toISOString();

/** HIGH: first response in 1 h, resolution in 8 h; LOW: 2 h and 4 h; all 24x7, so deadlines are exact. */
const GOALS = { HIGH: { firstResponse: 'PT1H', resolution: 'PT8H' }, LOW: { firstResponse: 'PT2H', resolution: 'PT4H' } };

function requests(testApp: TestAppHandle) {
  const http = () => testApp.http;
  return {
    create: async (overrides: Json = {}): Promise<Json> =>
      (await http().post('/api/v2/tickets').send(buildTicketRequest(overrides)).expect(201)).body,
    patch: async (id: number, changes: Json): Promise<Json> =>
      (await http().patch(`/api/v2/tickets/${id}`).set('Content-Type', MERGE_PATCH).send(changes).expect(200)).body,
    sla: async (id: number, version = 'v2'): Promise<Json> =>
      (
        await http()
          .get(version === 'v2' ? `/api/v2/tickets/${id}/sla` : `/api/tickets/${id}/sla`)
          .expect(200)
      ).body,
  };
}
const metric = (sla: Json, name: string) => sla.metrics.find((m: Json) => m.name === name);

describe('SLA clocks (SLA_ENABLED=true)', () => {
  const testApp = useTestApp({ env: slaPolicyEnv(GOALS) });
  const api = requests(testApp);

  it("starts both clocks on create and answers them in Jira's shape, in v1 and v2 alike", async () => {
    const ticket = await api.create({ priority: 'HIGH' });
    const sla = await api.sla(ticket.id);
    expect(sla).toMatchObject({ priority: 'HIGH', calendar: 'always' });
    expect(metric(sla, 'firstResponse')).toMatchObject({
      goal: 'PT1H',
      ongoingCycle: {
        cycle: 1,
        startTime: ticket.createdAt,
        breachTime: iso(at(ticket.createdAt) + H),
        breached: false,
        paused: false,
        withinCalendarHours: true,
      },
      completedCycles: [],
    });
    expect(metric(sla, 'resolution').ongoingCycle).toMatchObject({ breachTime: iso(at(ticket.createdAt) + 8 * H), goal: 'PT8H' });
    expect(metric(sla, 'resolution').ongoingCycle.remainingTime).toMatch(/^PT7H\d+M(\d+S)?$|^PT8H$/);
    expect(await api.sla(ticket.id, 'v1')).toEqual({ ...sla, metrics: expect.any(Array) });
  });

  it('carries sla { breached, nextBreachTime } in v2 bodies, and nothing in v1 bodies', async () => {
    const ticket = await api.create({ priority: 'HIGH' });
    expect(ticket.sla).toEqual({ breached: false, nextBreachTime: iso(at(ticket.createdAt) + H) });
    const v2 = (await testApp.http.get(`/api/v2/tickets/${ticket.id}`).expect(200)).body;
    expect(v2.sla).toEqual(ticket.sla);
    const listed = (await testApp.http.get(`/api/v2/tickets?limit=100&sort=-id`).expect(200)).body.items.find(
      (t: Json) => t.id === ticket.id,
    );
    expect(listed.sla).toEqual(ticket.sla);
    const v1 = (await testApp.http.get(`/api/tickets/${ticket.id}`).expect(200)).body;
    expect(Object.keys(v1)).not.toContain('sla');
  });

  it('stops firstResponse when the status leaves OPEN; resolution runs on', async () => {
    const ticket = await api.create({ priority: 'HIGH' });
    const moved = await api.patch(ticket.id, { status: 'IN_PROGRESS' });
    const sla = await api.sla(ticket.id);
    expect(metric(sla, 'firstResponse')).toMatchObject({
      ongoingCycle: null,
      completedCycles: [{ cycle: 1, startTime: ticket.createdAt, stopTime: moved.updatedAt, breached: false, goal: 'PT1H' }],
    });
    expect(moved.sla.nextBreachTime).toBe(iso(at(ticket.createdAt) + 8 * H));
  });

  it("stops firstResponse on a public comment by someone other than the requester, not on the requester's own or an internal one", async () => {
    const ticket = await api.create({ priority: 'HIGH' });
    const comment = (body: Json) =>
      testApp.http
        .post(`/api/tickets/${ticket.id}/comments`)
        .send({ body: 'On it', ...body })
        .expect(201);
    await comment({ author: ticket.requesterEmail.toUpperCase() });
    await comment({ author: 'agent@example.com', visibility: 'INTERNAL' });
    expect(metric(await api.sla(ticket.id), 'firstResponse').ongoingCycle).not.toBeNull();
    const answer = (await comment({ author: 'agent@example.com' })).body;
    expect(metric(await api.sla(ticket.id), 'firstResponse').completedCycles).toEqual([
      expect.objectContaining({ stopTime: answer.createdAt, breached: false }),
    ]);
  });

  it('pauses resolution while WAITING_ON_CUSTOMER and moves its deadline by the time paused', async () => {
    const ticket = await api.create({ priority: 'HIGH', status: 'IN_PROGRESS' });
    const paused = await api.patch(ticket.id, { status: 'WAITING_ON_CUSTOMER' });
    const whilePaused = metric(await api.sla(ticket.id), 'resolution').ongoingCycle;
    expect(whilePaused).toMatchObject({ paused: true, breachTime: null });
    expect(paused.sla.nextBreachTime).toBeNull();
    const resumed = await api.patch(ticket.id, { status: 'IN_PROGRESS' });
    const pausedFor = at(resumed.updatedAt) - at(paused.updatedAt);
    expect(metric(await api.sla(ticket.id), 'resolution').ongoingCycle).toMatchObject({
      paused: false,
      breachTime: iso(at(ticket.createdAt) + 8 * H + pausedFor),
    });
  });

  it('starts a new resolution cycle with the full goal on a reopen and keeps the completed one', async () => {
    const ticket = await api.create({ priority: 'HIGH', status: 'IN_PROGRESS' });
    const resolved = await api.patch(ticket.id, { status: 'RESOLVED' });
    const reopened = await api.patch(ticket.id, { status: 'IN_PROGRESS' });
    const resolution = metric(await api.sla(ticket.id), 'resolution');
    expect(resolution.completedCycles).toEqual([
      expect.objectContaining({ cycle: 1, startTime: ticket.createdAt, stopTime: resolved.updatedAt, breached: false }),
    ]);
    expect(resolution.ongoingCycle).toMatchObject({
      cycle: 2,
      startTime: reopened.updatedAt,
      breachTime: iso(at(reopened.updatedAt) + 8 * H),
    });
  });

  it('re-times the running clocks on a priority change, keeping the time spent', async () => {
    const ticket = await api.create({ priority: 'HIGH', status: 'IN_PROGRESS' });
    const lowered = await api.patch(ticket.id, { priority: 'LOW' });
    // LOW's resolution goal is 4 h of which the time since the create is spent: the deadline is created + 4 h.
    expect(metric(await api.sla(ticket.id), 'resolution').ongoingCycle).toMatchObject({
      goal: 'PT4H',
      breachTime: iso(at(ticket.createdAt) + 4 * H),
    });
    expect(lowered.sla.nextBreachTime).toBe(iso(at(ticket.createdAt) + 4 * H));
  });

  it('answers as the OpenAPI document declares: the clocks in both versions, and v2 tickets with their sla', async () => {
    const ticket = await api.create({ priority: 'HIGH' });
    await api.patch(ticket.id, { status: 'IN_PROGRESS' });
    const v1 = await OpenApiContract.from((await testApp.http.get('/v3/api-docs/v1').expect(200)).body);
    const v2 = await OpenApiContract.from((await testApp.http.get('/v3/api-docs/v2').expect(200)).body);
    v1.expectResponse('get', '/api/tickets/{id}/sla', await testApp.http.get(`/api/tickets/${ticket.id}/sla`).expect(200));
    v2.expectResponse('get', '/api/v2/tickets/{id}/sla', await testApp.http.get(`/api/v2/tickets/${ticket.id}/sla`).expect(200));
    v2.expectResponse('get', '/api/v2/tickets/{id}', await testApp.http.get(`/api/v2/tickets/${ticket.id}`).expect(200));
    v2.expectResponse('get', '/api/v2/tickets', await testApp.http.get('/api/v2/tickets?limit=5').expect(200));
  });

  it("answers 404 in each version's shape for an unknown ticket", async () => {
    const v1 = expectSpringError(asHttpResponse(await testApp.http.get('/api/tickets/999999999/sla').expect(404)), 404);
    expect(v1.message).toBe('Ticket not found with id: 999999999');
    const v2 = expectProblem(asHttpResponse(await testApp.http.get('/api/v2/tickets/999999999/sla').expect(404)), 404);
    expect(v2.detail).toBe('Ticket not found with id: 999999999');
  });

  it('forgets the clocks of a deleted ticket', async () => {
    const ticket = await api.create({ priority: 'HIGH' });
    await testApp.http.delete(`/api/tickets/${ticket.id}`).expect(204);
    await testApp.http.get(`/api/v2/tickets/${ticket.id}/sla`).expect(404);
  });
});

describe('SLA clocks off (the default)', () => {
  const testApp = useTestApp({ env: { MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE: 'health,prometheus' } });

  it('adds no sla field to v2 bodies and answers the /sla endpoints with a 404 that says SLA is off', async () => {
    const ticket = (await testApp.http.post('/api/v2/tickets').send(buildTicketRequest()).expect(201)).body;
    expect(Object.keys(ticket)).not.toContain('sla');
    const v1 = await testApp.http.get(`/api/tickets/${ticket.id}/sla`).expect(404);
    expect(v1.body.message).toBe('SLA clocks are not enabled on this service (SLA_ENABLED=false)');
    await testApp.http.get(`/api/v2/tickets/${ticket.id}/sla`).expect(404);
  });

  it('writes no clock, marks nothing on the ticket row and registers no SLA metric', async () => {
    const ticket = (
      await testApp.http
        .post('/api/v2/tickets')
        .send(buildTicketRequest({ priority: 'CRITICAL' }))
        .expect(201)
    ).body;
    await testApp.http
      .patch(`/api/v2/tickets/${ticket.id}`)
      .set('Content-Type', MERGE_PATCH)
      .send({ status: 'WAITING_ON_CUSTOMER' })
      .expect(200);
    const db = testApp.app.get(DataSource);
    expect(await db.query('SELECT * FROM ticket_sla_clocks WHERE ticket_id = ?', [ticket.id])).toEqual([]);
    const [row] = await db.query('SELECT sla_due_at, sla_breached FROM tickets WHERE id = ?', [ticket.id]);
    expect([row.sla_due_at.toISOString(), Number(row.sla_breached)]).toEqual(['9999-12-31T23:59:59.999Z', 0]);
    expect((await testApp.http.get('/actuator/prometheus').expect(200)).text).not.toContain('tickets_sla_');
  });

  it('lists as before SLA existed: v1 ignores its parameters, v2 refuses them, and slaDueAt is no sort field', async () => {
    // Its own requester, so the answer is this ticket alone however many tickets the run's database holds.
    const requesterEmail = `sla-off-${Date.now()}@example.com`;
    const ticket = (await testApp.http.post('/api/tickets').send(buildTicketRequest({ requesterEmail })).expect(201)).body;
    const v1 = await testApp.http
      .get(`/api/tickets?slaBreached=true&slaDueBefore=2000-01-01T00:00:00Z&requesterEmail=${encodeURIComponent(requesterEmail)}`)
      .expect(200);
    expect(v1.body.map((t: Json) => t.id)).toEqual([ticket.id]);
    const accepted =
      'status, priority, requesterEmail, assignedTo, createdAfter, createdBefore, updatedAfter, updatedBefore, q, tags, anyTags, linkedTo, linkType, sort, limit, cursor, total';
    for (const name of ['slaBreached', 'slaDueBefore']) {
      const v2 = await testApp.http.get(`/api/v2/tickets?${name}=x`).expect(400);
      expect(JSON.stringify(v2.body)).toContain(accepted);
      expect(JSON.stringify(v2.body)).not.toMatch(/accepted: [^"]*sla/);
    }
    const fields =
      'Unknown sort field; accepted: id, createdAt, updatedAt, priority, status, each optionally prefixed with - for descending order';
    const sortV1 = await testApp.http.get('/api/tickets?sort=slaDueAt').expect(400);
    expect(sortV1.text).toContain(fields);
    const sortV2 = await testApp.http.get('/api/v2/tickets?sort=-slaDueAt').expect(400);
    expect(sortV2.text).toContain(fields);
  });
});

describe('SLA policy changed under running clocks', () => {
  it('ends start-up, naming the calendar, when clocks not yet completed use a calendar the policy no longer has', async () => {
    const env = slaPolicyEnv(GOALS);
    const app = await createTestApp({ env });
    try {
      const created = await app.get(DataSource).query('SELECT COUNT(*) AS n FROM ticket_sla_clocks WHERE stopped_at IS NULL');
      if (Number(created[0].n) === 0) {
        // The database is this run's: make sure a clock runs, whatever ran before in it.
        const { default: request } = await import('supertest');
        await request(app.getHttpServer())
          .post('/api/v2/tickets')
          .send(buildTicketRequest({ priority: 'HIGH' }))
          .expect(201);
      }
    } finally {
      await app.close();
    }
    // The same policy with its calendar renamed.
    writeFileSync(env.SLA_POLICY_FILE, readFileSync(env.SLA_POLICY_FILE, 'utf8').replaceAll('always', 'allday'));
    await expect(createTestApp({ env })).rejects.toThrow(/clocks not yet completed use the calendar\(s\) always,? /);
  });
});
