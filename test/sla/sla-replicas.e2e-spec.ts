import { type Connection, createConnection } from 'mysql2/promise';
import { EventConsumer } from '../support/event-consumer.js';
import { ServiceProcess } from '../support/service-process.js';
import { slaPolicyEnv } from '../support/sla-policy.js';
import { slaEventsOf } from '../support/sla-events.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { useOwnDatabase } from '../support/database.js';

type Json = Record<string, any>;

const database = useOwnDatabase('sla');

/**
 * SLA events with the service as real processes on one database of their own: replicas racing for the same
 * breaches, one of them killed, and breaches that fell due while no replica ran. An event sent "once" is one
 * eventId: the outbox delivers at least once, so a redelivery after a crash repeats an eventId, never makes a new one.
 */
describe('SLA events across replicas and restarts', () => {
  // HIGH: first response due 2 s after the create; everything else in hours. Warnings off: only breaches.
  const env = {
    ...slaPolicyEnv({ HIGH: { firstResponse: 'PT2S', resolution: 'PT10H' } }),
    DB_DATABASE: database,
    OUTBOX_LEASE_TTL_MS: '1000',
    OUTBOX_POLL_INTERVAL_MS: '250',
  };
  const services: ServiceProcess[] = [];
  let consumer: EventConsumer;
  let db: Connection;

  beforeAll(async () => {
    consumer = await EventConsumer.bound('ticket.#');
    services.push(await ServiceProcess.start(env));
    db = await createConnection({
      host: process.env.DB_HOST ?? '127.0.0.1',
      port: Number(process.env.DB_PORT ?? 3306),
      user: process.env.DB_USERNAME ?? 'root',
      password: process.env.DB_PASSWORD ?? '',
      database,
      timezone: 'Z',
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    await db?.end();
    await consumer?.stop();
  }, 60_000);

  const start = async () => {
    const service = await ServiceProcess.start(env);
    services.push(service);
    return service;
  };
  const create = async (service: ServiceProcess, priority = 'HIGH'): Promise<Json> => {
    const response = await fetch(`${service.url}/api/tickets`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(buildTicketRequest({ priority })),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as Json;
  };
  /** The breaches the consumer received, once every ticket's breach is recorded and a marker update per ticket has come through. */
  async function settledBreaches(service: ServiceProcess, ids: number[]): Promise<Map<number, Json[]>> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [[{ pending }]] = (await db.query(
        `SELECT COUNT(*) AS pending FROM ticket_sla_clocks WHERE ticket_id IN (?) AND metric = 'firstResponse' AND breach_due_at IS NOT NULL`,
        [ids],
      )) as any;
      if (Number(pending) === 0) break;
      if (Date.now() > deadline) throw new Error(`${pending} breaches still pending`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const id of ids) {
      const response = await fetch(`${service.url}/api/tickets/${id}`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/merge-patch+json' },
        body: JSON.stringify({ assignedTo: 'marker' }),
      });
      expect(response.status).toBe(200);
    }
    await consumer.waitFor(
      () => ids.every((id) => consumer.bodies().some((e) => e.ticketId === id && e.ticket?.assignedTo === 'marker')),
      30_000,
    );
    return new Map(ids.map((id) => [id, slaEventsOf(consumer, id).filter((e) => e.eventType === 'SLA_BREACHED')]));
  }

  it('sends one event per breach with two replicas on one database, one of them killed with SIGKILL', async () => {
    const [first] = services;
    const second = await start();
    const tickets: Json[] = [];
    // Both replicas poll through the due times of the first 20 breaches, racing for each of them.
    for (let i = 0; i < 20; i++) tickets.push(await create(i % 2 === 0 ? first : second));
    const firstIds = tickets.map((ticket) => ticket.id);
    await consumer.waitFor(() => firstIds.every((id) => slaEventsOf(consumer, id).length > 0), 30_000);
    // Then 20 more, and the first replica is killed while their breaches are still to come or being sent.
    for (let i = 0; i < 20; i++) tickets.push(await create(i % 2 === 0 ? first : second));
    first.kill('SIGKILL');
    await first.exited;
    const ids = tickets.map((ticket) => ticket.id);
    await consumer.waitFor(() => ids.every((id) => slaEventsOf(consumer, id).length > 0), 30_000);
    const breaches = await settledBreaches(second, ids);
    for (const ticket of tickets) {
      expect(breaches.get(ticket.id)!.map((e) => e.sla)).toEqual([
        { metric: 'firstResponse', cycle: 1, breachTime: new Date(Date.parse(ticket.createdAt) + 2000).toISOString() },
      ]);
    }
    const [rows] = (await db.query(`SELECT COUNT(*) AS sent FROM ticket_sla_events WHERE ticket_id IN (?)`, [ids])) as any;
    expect(Number(rows[0].sent)).toBe(40);
  }, 180_000);

  it('sends a breach that fell due while no replica ran once, at start, and not again after another restart', async () => {
    const service = await start();
    // LOW: due in hours. With every replica stopped, the clock is set back as if those hours had passed.
    const ticket = await create(service, 'LOW');
    await Promise.all(services.map((s) => s.stop()));
    const dueAt = new Date(Date.now() - 60_000);
    await db.query(`UPDATE ticket_sla_clocks SET breach_at = ?, breach_due_at = ? WHERE ticket_id = ? AND metric = 'firstResponse'`, [
      dueAt,
      dueAt,
      ticket.id,
    ]);
    const restarted = await start();
    await consumer.waitFor(() => slaEventsOf(consumer, ticket.id).length > 0, 30_000);
    restarted.kill('SIGKILL');
    await restarted.exited;
    // The breach due again, as if its handling had not been recorded: only ticket_sla_events' key stops a second send.
    await db.query(`UPDATE ticket_sla_clocks SET breach_due_at = ? WHERE ticket_id = ? AND metric = 'firstResponse'`, [dueAt, ticket.id]);
    const again = await start();
    const breaches = await settledBreaches(again, [ticket.id]);
    expect(breaches.get(ticket.id)!.map((e) => e.sla)).toEqual([{ metric: 'firstResponse', cycle: 1, breachTime: dueAt.toISOString() }]);
  }, 120_000);
});
