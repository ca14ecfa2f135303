import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { connectToDatabase } from '../support/database.js';
import { EventConsumer } from '../support/event-consumer.js';
import { slaPolicyEnv } from '../support/sla-policy.js';
import { slaEventsOf, untilHandled } from '../support/sla-events.js';
import { createTestApp, untilReady } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { waitUntil } from '../support/waits.js';

type Json = Record<string, any>;

const MERGE_PATCH = 'application/merge-patch+json';
const at = (text: string) => Date.parse(text);
const iso = (ms: number) => new Date(ms).toISOString();
const metric = (sla: Json, name: string) => sla.metrics.find((m: Json) => m.name === name);

/** LOW: resolution in 15 s; CRITICAL: in 5 s; first responses in hours. All 24x7, no warnings. */
const SLA_ON = slaPolicyEnv({
  LOW: { firstResponse: 'PT1H', resolution: 'PT15S' },
  CRITICAL: { firstResponse: 'PT1H', resolution: 'PT5S' },
});
const SLA_OFF = { SLA_ENABLED: 'false' };

/**
 * Tickets created with SLA on, written by a service with SLA off, then read by one with SLA on again: the clocks
 * follow the writes made while it was off, at the times they were made (docs/sla.md#switching-sla-off-and-on).
 * Waits are bounded polls; "nothing more was sent" is shown by a marker update, published on the ticket's outbox
 * partition after any SLA event recorded before it.
 */
describe('SLA clocks after SLA was switched off and on again', () => {
  let app: INestApplication | undefined;
  let consumer: EventConsumer;

  beforeAll(async () => {
    consumer = await EventConsumer.bound('ticket.#');
  });

  afterAll(async () => {
    await app?.close();
    await consumer.stop();
  });

  const restart = async (env: Record<string, string>) => {
    await app?.close();
    app = await createTestApp({ env });
    await untilReady(app);
  };
  const http = () => request(app!.getHttpServer());
  const create = async (overrides: Json): Promise<Json> =>
    (await http().post('/api/v2/tickets').send(buildTicketRequest(overrides)).expect(201)).body;
  const patch = async (id: number, changes: Json): Promise<Json> =>
    (await http().patch(`/api/v2/tickets/${id}`).set('Content-Type', MERGE_PATCH).send(changes).expect(200)).body;
  const sla = async (id: number): Promise<Json> => (await http().get(`/api/v2/tickets/${id}/sla`).expect(200)).body;

  /** Every SLA event of the tickets, once the detector has nothing left of theirs and a marker of each has come through. */
  async function settledEvents(ids: number[]): Promise<Map<number, Json[]>> {
    const db = app!.get(DataSource);
    for (const id of ids) await untilHandled(db, id, 'resolution', 40_000);
    const markers = await Promise.all(ids.map((id) => patch(id, { assignedTo: `marker-${Date.now()}` })));
    await consumer.waitFor(
      () =>
        markers.every((marker) => consumer.bodies().some((e) => e.ticketId === marker.id && e.ticket?.assignedTo === marker.assignedTo)),
      20_000,
    );
    return new Map(ids.map((id) => [id, slaEventsOf(consumer, id).map((e) => [e.eventType, e.sla])]));
  }

  let resolved: Json, waiting: Json, raised: Json, deleted: Json, untouched: Json, createdOff: Json;
  let resolvedAt: string, raisedAt: string;

  beforeAll(async () => {
    await restart(SLA_ON);
    resolved = await create({ priority: 'LOW', status: 'IN_PROGRESS' });
    waiting = await create({ priority: 'LOW', status: 'IN_PROGRESS' });
    raised = await create({ priority: 'LOW', status: 'IN_PROGRESS' });
    deleted = await create({ priority: 'LOW', status: 'IN_PROGRESS' });
    // Left alone: its breach is real, and due after the false one `resolved` would have had.
    untouched = await create({ priority: 'LOW', status: 'IN_PROGRESS' });

    await restart(SLA_OFF);
    resolvedAt = (await patch(resolved.id, { status: 'RESOLVED' })).updatedAt;
    const waitedAt = (await patch(waiting.id, { status: 'WAITING_ON_CUSTOMER' })).updatedAt;
    raisedAt = (await patch(raised.id, { priority: 'CRITICAL' })).updatedAt;
    await http().delete(`/api/v2/tickets/${deleted.id}`).expect(204);
    createdOff = await create({ priority: 'LOW', status: 'IN_PROGRESS' });
    // Made before the LOW goal ran out, so a breach of `resolved` or `waiting` would be a false one.
    if (Math.max(at(resolvedAt), at(waitedAt)) >= at(resolved.createdAt) + 15_000) throw new Error('the writes while off came too late');

    await restart(SLA_ON);
  }, 60_000);

  const raisedBreach = () => iso(Math.max(at(raised.createdAt) + 5000, at(raisedAt)));

  it('stops the resolution clock of a ticket resolved while SLA was off at the time it was resolved', async () => {
    expect(metric(await sla(resolved.id), 'resolution')).toMatchObject({
      ongoingCycle: null,
      completedCycles: [{ cycle: 1, startTime: resolved.createdAt, stopTime: resolvedAt, breached: false }],
    });
  });

  it('pauses the resolution clock of a ticket that waited on the customer while SLA was off', async () => {
    expect(metric(await sla(waiting.id), 'resolution').ongoingCycle).toMatchObject({ paused: true, breached: false });
  });

  it("re-times with a priority raised while SLA was off, counting the time from the ticket's start", async () => {
    const raisedSla = await sla(raised.id);
    expect(raisedSla.priority).toBe('CRITICAL');
    expect(metric(raisedSla, 'resolution')).toMatchObject({ goal: 'PT5S', completedCycles: [] });
    expect(metric(raisedSla, 'resolution').ongoingCycle).toMatchObject({ goal: 'PT5S', breachTime: raisedBreach() });
  });

  it('gives a ticket created while SLA was off the clocks it would have had', async () => {
    const createdOffSla = await sla(createdOff.id);
    expect(metric(createdOffSla, 'firstResponse').completedCycles).toMatchObject([{ cycle: 1, startTime: createdOff.createdAt }]);
    expect(metric(createdOffSla, 'resolution').ongoingCycle).toMatchObject({
      cycle: 1,
      startTime: createdOff.createdAt,
      breachTime: iso(at(createdOff.createdAt) + 15_000),
    });
  });

  it('sends no breach that never happened, each real one once, also after another start, and nothing of a deleted ticket', async () => {
    const ids = [resolved.id, waiting.id, raised.id, untouched.id, createdOff.id];
    const expected = new Map([
      [resolved.id, []],
      [waiting.id, []],
      [raised.id, [['SLA_BREACHED', { metric: 'resolution', cycle: 1, breachTime: raisedBreach() }]]],
      [untouched.id, [['SLA_BREACHED', { metric: 'resolution', cycle: 1, breachTime: iso(at(untouched.createdAt) + 15_000) }]]],
      [createdOff.id, [['SLA_BREACHED', { metric: 'resolution', cycle: 1, breachTime: iso(at(createdOff.createdAt) + 15_000) }]]],
    ]);
    expect(await settledEvents(ids)).toEqual(expected);
    // A deleted ticket's clocks went with it (by foreign key), while SLA was off too.
    await http().get(`/api/v2/tickets/${deleted.id}/sla`).expect(404);
    const [{ remaining }] = await app!
      .get(DataSource)
      .query('SELECT COUNT(*) AS remaining FROM ticket_sla_clocks WHERE ticket_id = ?', [deleted.id]);
    expect(Number(remaining)).toBe(0);
    expect(slaEventsOf(consumer, deleted.id)).toEqual([]);

    // Started again with SLA on: nothing is replayed twice, and no event is sent again.
    await restart(SLA_ON);
    expect(metric(await sla(resolved.id), 'resolution').completedCycles).toHaveLength(1);
    expect(await settledEvents(ids)).toEqual(expected);
  }, 120_000);
});

/**
 * The reconciliation runs once the service has started, without holding up its start: readiness refuses traffic
 * until it has finished. A row lock the test holds on a ticket to be reconciled keeps it running.
 */
describe('Readiness while the SLA clocks are reconciled', () => {
  // A statement time limit well above the time the lock is held, so the reconciliation waits for it rather than failing.
  const PROBES = { MANAGEMENT_HEALTH_PROBES_ENABLED: 'true', DB_QUERY_TIMEOUT_MS: '30000' };
  let app: INestApplication | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const start = async (env: Record<string, string>) => {
    await app?.close();
    app = await createTestApp({ env: { ...env, ...PROBES } });
    return request(app.getHttpServer());
  };

  it('answers readiness 503 OUT_OF_SERVICE while the reconciliation runs and 200 UP once it has finished', async () => {
    let http = await start(SLA_ON);
    const ticket = (
      await http
        .post('/api/v2/tickets')
        .send(buildTicketRequest({ priority: 'LOW', status: 'IN_PROGRESS' }))
        .expect(201)
    ).body;
    await untilReady(app!);
    http = await start(SLA_OFF);
    const resolvedAt = (
      await http.patch(`/api/v2/tickets/${ticket.id}`).set('Content-Type', MERGE_PATCH).send({ status: 'RESOLVED' }).expect(200)
    ).body.updatedAt;

    const db = await connectToDatabase();
    try {
      await db.query('START TRANSACTION');
      await db.query('SELECT id FROM tickets WHERE id = ? FOR UPDATE', [ticket.id]);
      http = await start(SLA_ON);
      const waitingForTheLock = async () =>
        (
          (await db.query(
            "SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND info LIKE '%sla_synced_at%FOR UPDATE%' AND info NOT LIKE '%processlist%'",
          )) as any
        )[0].length > 0;
      await waitUntil(waitingForTheLock, 10_000, 'the reconciliation waiting for the row lock');
      const readiness = await http.get('/actuator/health/readiness').expect(503);
      expect(readiness.body).toEqual({ status: 'OUT_OF_SERVICE' });
      expect((await http.get('/actuator/health/liveness').expect(200)).body).toEqual({ status: 'UP' });
      // Served meanwhile, for whoever asks despite readiness: the clock as it was before the reconciliation.
      expect(metric((await http.get(`/api/v2/tickets/${ticket.id}/sla`).expect(200)).body, 'resolution').ongoingCycle).not.toBeNull();
    } finally {
      await db.query('ROLLBACK');
      await db.end();
    }

    await waitUntil(async () => (await http.get('/actuator/health/readiness')).status === 200, 20_000, 'readiness UP');
    expect((await http.get('/actuator/health/readiness').expect(200)).body).toEqual({ status: 'UP' });
    expect(metric((await http.get(`/api/v2/tickets/${ticket.id}/sla`).expect(200)).body, 'resolution')).toMatchObject({
      ongoingCycle: null,
      completedCycles: [{ cycle: 1, stopTime: resolvedAt, breached: false }],
    });
  }, 60_000);
});
