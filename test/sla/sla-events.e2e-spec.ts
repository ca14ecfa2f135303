import { DataSource } from 'typeorm';
import { type LockWait, lockWaitOf, useOwnDatabase } from '../support/database.js';
import { EventConsumer } from '../support/event-consumer.js';
import { slaPolicyEnv } from '../support/sla-policy.js';
import { slaEventsOf, untilHandled } from '../support/sla-events.js';
import { useTestApp } from '../support/test-app.js';
import { parseScrape, valueOf } from '../support/prometheus-scrape.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { SlaRepository } from '../../src/sla/sla.repository.js';

type Json = Record<string, any>;

const MERGE_PATCH = 'application/merge-patch+json';
const at = (text: string) => Date.parse(text);
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * HIGH: first response due in 3 s, warned 2 s before; CRITICAL: resolution due in 2 s; MEDIUM and LOW: 6 s and 1 h. All
 * 24x7. Waits are bounded polls for conditions; "nothing more" is shown by a marker: once the detector has nothing
 * left to send for a clock, an update of the ticket publishes UPDATED on the ticket's outbox partition, after any
 * SLA event recorded before it, so when the marker has arrived every SLA event of the ticket has too.
 */
const GOALS = {
  HIGH: { firstResponse: 'PT3S', resolution: 'PT10H' },
  CRITICAL: { firstResponse: 'PT10H', resolution: 'PT2S' },
  MEDIUM: { firstResponse: 'PT6S', resolution: 'PT10H' },
  LOW: { firstResponse: 'PT1H', resolution: 'PT10H' },
};

/**
 * On a database of its own: clocks that earlier suites left running in the worker's database breach while this suite
 * runs, and its detector would count them with its own in the breach counter.
 */
const database = useOwnDatabase('sla_events');

describe('SLA events', () => {
  const testApp = useTestApp({
    env: { ...slaPolicyEnv(GOALS, 'PT2S'), DB_DATABASE: database, MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE: 'health,prometheus' },
  });
  let consumer: EventConsumer;
  let db: DataSource;

  beforeAll(async () => {
    consumer = await EventConsumer.bound('ticket.#');
    db = testApp.app.get(DataSource);
  });

  afterAll(async () => {
    await consumer.stop();
  });

  const create = async (overrides: Json): Promise<Json> =>
    (await testApp.http.post('/api/v2/tickets').send(buildTicketRequest(overrides)).expect(201)).body;
  const patch = async (id: number, changes: Json): Promise<Json> =>
    (await testApp.http.patch(`/api/v2/tickets/${id}`).set('Content-Type', MERGE_PATCH).send(changes).expect(200)).body;

  /** Every SLA event of the ticket, once the detector is done with `metric` and a marker update has come through. */
  async function settledEvents(id: number, metric?: string): Promise<Json[]> {
    if (metric) await untilHandled(db, id, metric);
    const marker = await patch(id, { assignedTo: `marker-${Date.now()}` });
    await consumer.waitFor(
      () => consumer.bodies().some((event) => event.ticketId === id && event.ticket?.assignedTo === marker.assignedTo),
      20_000,
    );
    return slaEventsOf(consumer, id);
  }

  const scrape = async () => parseScrape((await testApp.http.get('/actuator/prometheus').expect(200)).text);
  const breachesCounted = async () => valueOf(await scrape(), 'tickets_sla_breaches_total', { metric: 'firstResponse', priority: 'HIGH' });

  it('sends SLA_WARNING, then SLA_BREACHED, once each, on their own routing keys, and counts the breach', async () => {
    const countedBefore = await breachesCounted();
    const ticket = await create({ priority: 'HIGH' });
    expect(valueOf(await scrape(), 'tickets_sla_running', { metric: 'firstResponse' })).toBeGreaterThanOrEqual(1);
    const breachTime = iso(at(ticket.createdAt) + 3000);
    await consumer.waitFor(() => slaEventsOf(consumer, ticket.id).length >= 2, 20_000);
    const events = await settledEvents(ticket.id, 'firstResponse');
    expect(events.map((event) => [event.eventType, event.sla])).toEqual([
      ['SLA_WARNING', { metric: 'firstResponse', cycle: 1, breachTime }],
      ['SLA_BREACHED', { metric: 'firstResponse', cycle: 1, breachTime }],
    ]);
    const keys = consumer
      .forTicket(ticket.id)
      .filter((m) => String(m.properties.type).startsWith('SLA_'))
      .map((m) => m.fields.routingKey);
    expect([...new Set(keys)]).toEqual(['ticket.sla.warning', 'ticket.sla.breached']);
    expect(events[1]).toMatchObject({ ticketId: ticket.id, eventId: expect.any(String), occurredAt: expect.any(String) });
    expect(at(events[1].occurredAt)).toBeGreaterThanOrEqual(at(breachTime));
    // The ticket is marked breached for v2 bodies and the slaBreached filter.
    expect((await testApp.http.get(`/api/v2/tickets/${ticket.id}`).expect(200)).body.sla).toMatchObject({ breached: true });
    expect(await breachesCounted()).toBe(countedBefore + 1);
  });

  it('answers a conditional GET with the breached summary, not 304, once a clock breaches without a write', async () => {
    const ticket = await create({ priority: 'CRITICAL' });
    const first = await testApp.http.get(`/api/v2/tickets/${ticket.id}`).expect(200);
    expect(first.body.sla.breached).toBe(false);
    await untilHandled(db, ticket.id, 'resolution');
    const fresh = await testApp.http.get(`/api/v2/tickets/${ticket.id}`).set('If-None-Match', first.headers.etag).expect(200);
    expect(fresh.body.sla).toEqual({ breached: true, nextBreachTime: fresh.body.sla.nextBreachTime });
    expect(fresh.headers.etag).not.toEqual(first.headers.etag);
    await testApp.http.get(`/api/v2/tickets/${ticket.id}`).set('If-None-Match', fresh.headers.etag).expect(304);
    // Either tag still guards a write: the ticket's version has not changed.
    await testApp.http
      .patch(`/api/v2/tickets/${ticket.id}`)
      .set('Content-Type', MERGE_PATCH)
      .set('If-Match', first.headers.etag)
      .send({ assignedTo: 'after-breach' })
      .expect(200);
  });

  it('starts a new cycle on a reopen, whose breach is its own event', async () => {
    const ticket = await create({ priority: 'CRITICAL', status: 'IN_PROGRESS' });
    await consumer.waitFor(() => slaEventsOf(consumer, ticket.id).some((e) => e.eventType === 'SLA_BREACHED'), 20_000);
    await patch(ticket.id, { status: 'RESOLVED' });
    const reopened = await patch(ticket.id, { status: 'IN_PROGRESS' });
    await consumer.waitFor(() => slaEventsOf(consumer, ticket.id).filter((e) => e.eventType === 'SLA_BREACHED').length >= 2, 20_000);
    const breaches = (await settledEvents(ticket.id, 'resolution')).filter((e) => e.eventType === 'SLA_BREACHED');
    expect(breaches.map((e) => e.sla)).toEqual([
      { metric: 'resolution', cycle: 1, breachTime: iso(at(ticket.createdAt) + 2000) },
      { metric: 'resolution', cycle: 2, breachTime: iso(at(reopened.updatedAt) + 2000) },
    ]);
  });

  it('breaches at once, with one event and no warning, when a priority change finds the new goal exceeded', async () => {
    const ticket = await create({ priority: 'LOW', status: 'IN_PROGRESS' });
    // Past CRITICAL's 2 s of resolution (a bounded wait for the clock, not a timed assertion).
    await consumer.waitFor(() => Date.now() > at(ticket.createdAt) + 2500, 10_000);
    const raised = await patch(ticket.id, { priority: 'CRITICAL' });
    await consumer.waitFor(() => slaEventsOf(consumer, ticket.id).length >= 1, 20_000);
    const events = await settledEvents(ticket.id, 'resolution');
    expect(events.map((e) => [e.eventType, e.sla])).toEqual([
      ['SLA_BREACHED', { metric: 'resolution', cycle: 1, breachTime: raised.updatedAt }],
    ]);
  });

  it('goes on sending the other events while one of them keeps failing, and sends that one once it can', async () => {
    // The database refuses to record this ticket's events: each attempt's transaction fails and rolls back. The
    // trigger is in place before the ticket exists, because its warning (2 s before a 2 s goal) is due at once.
    const requesterEmail = `refused-${Date.now()}@example.com`;
    await db.query(`CREATE TRIGGER sla_events_refused BEFORE INSERT ON ticket_sla_events FOR EACH ROW
      BEGIN IF (SELECT requester_email FROM tickets WHERE id = NEW.ticket_id) = '${requesterEmail}'
      THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test'; END IF; END`);
    let failing: Json;
    try {
      failing = await create({ priority: 'CRITICAL', status: 'IN_PROGRESS', requesterEmail });
      // Due after the failing one, so a detector that stops at the first failure would never reach it.
      const other = await create({ priority: 'CRITICAL', status: 'IN_PROGRESS' });
      await consumer.waitFor(() => slaEventsOf(consumer, other.id).some((e) => e.eventType === 'SLA_BREACHED'), 20_000);
      expect(slaEventsOf(consumer, failing.id)).toEqual([]);
      const [{ pending }] = await db.query(
        `SELECT breach_due_at IS NOT NULL AS pending FROM ticket_sla_clocks WHERE ticket_id = ? AND metric = 'resolution'`,
        [failing.id],
      );
      expect(Number(pending)).toBe(1);
    } finally {
      await db.query('DROP TRIGGER IF EXISTS sla_events_refused');
    }
    await consumer.waitFor(() => slaEventsOf(consumer, failing.id).some((e) => e.eventType === 'SLA_BREACHED'), 20_000);
  });

  it('locks the ticket row before the clock, as writes do, so the detector and a write wait for each other instead of deadlocking', async () => {
    const ticket = await create({ priority: 'LOW' });
    const [{ breach_due_at: dueAt }] = await db.query(
      `SELECT breach_due_at FROM ticket_sla_clocks WHERE ticket_id = ? AND metric = 'firstResponse'`,
      [ticket.id],
    );
    const writer = db.createQueryRunner();
    const detector = db.createQueryRunner();
    try {
      await writer.startTransaction();
      await detector.startTransaction();
      await writer.query('SELECT id FROM tickets WHERE id = ? FOR UPDATE', [ticket.id]);
      const detectorId = Number((await detector.query('SELECT CONNECTION_ID() AS id'))[0].id);
      const locked = testApp.app
        .get(SlaRepository)
        .lockDue(detector, { ticketId: ticket.id, metric: 'firstResponse', cycle: 1, kind: 'BREACHED', dueAt });
      // Wait (bounded) until the detector's statement waits for a lock, as InnoDB reports it now (lockWaitOf: not
      // information_schema.innodb_trx, whose copy these polls would keep from being renewed): the ticket row's.
      const deadline = Date.now() + 10_000;
      let wait: LockWait | undefined;
      while (!(wait = await lockWaitOf(db, detectorId))) {
        if (Date.now() > deadline) throw new Error('the detector never waited for the ticket row');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(wait).toEqual({ table: `\`${database}\`.\`tickets\``, index: 'PRIMARY' });
      // The writer goes on to the clock rows: the detector must not be holding them.
      await writer.query(`SELECT ticket_id FROM ticket_sla_clocks WHERE ticket_id = ? FOR UPDATE NOWAIT`, [ticket.id]);
      await writer.commitTransaction();
      expect(await locked).toMatchObject({ priority: 'LOW' });
      await detector.commitTransaction();
    } finally {
      if (writer.isTransactionActive) await writer.rollbackTransaction();
      if (detector.isTransactionActive) await detector.rollbackTransaction();
      await writer.release();
      await detector.release();
    }
  });

  it('sends nothing for a breach that stopped being one: responded in time, priority lowered, ticket deleted', async () => {
    // MEDIUM's first response is warned 4 s and due 6 s after the create. Writes that did not all land before the
    // first warning (a very loaded machine) do not make the case: the three are made again, a bounded number of times.
    let responded: Json, lowered: Json, deleted: Json;
    for (let attempt = 1; ; attempt++) {
      responded = await create({ priority: 'MEDIUM' });
      await testApp.http.post(`/api/tickets/${responded.id}/comments`).send({ body: 'Looking', author: 'agent@example.com' }).expect(201);
      lowered = await create({ priority: 'MEDIUM' });
      await patch(lowered.id, { priority: 'LOW' });
      deleted = await create({ priority: 'MEDIUM' });
      await testApp.http.delete(`/api/tickets/${deleted.id}`).expect(204);
      if (Date.now() < at(responded.createdAt) + 4000) break;
      if (attempt === 5) throw new Error('five attempts could not write within 4 s of a create');
    }
    const due = async (id: number) =>
      (
        await db.query(`SELECT warning_due_at, breach_due_at FROM ticket_sla_clocks WHERE ticket_id = ? AND metric = 'firstResponse'`, [id])
      )[0];
    // Responded: nothing left to send. Lowered: due when LOW's hour is up, MEDIUM's 6 s forgotten. Deleted: no clocks.
    expect(await due(responded.id)).toEqual({ warning_due_at: null, breach_due_at: null });
    expect((await due(lowered.id)).breach_due_at.toISOString()).toBe(iso(at(lowered.createdAt) + 3_600_000));
    expect(await db.query('SELECT * FROM ticket_sla_clocks WHERE ticket_id = ?', [deleted.id])).toEqual([]);
    // A ticket made after them breaches after their old due times: once its breach is out, the detector has been
    // past those times, and anything it would have sent for them has been recorded.
    const control = await create({ priority: 'MEDIUM' });
    await consumer.waitFor(() => slaEventsOf(consumer, control.id).some((e) => e.eventType === 'SLA_BREACHED'), 30_000);
    expect(await settledEvents(responded.id, 'firstResponse')).toEqual([]);
    expect(await settledEvents(lowered.id)).toEqual([]);
    expect(slaEventsOf(consumer, deleted.id)).toEqual([]);
  }, 60_000);
});
