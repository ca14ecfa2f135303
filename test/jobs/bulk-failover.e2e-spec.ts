import { randomBytes } from 'node:crypto';
import { connectToDatabase, seedTickets, useOwnDatabase } from '../support/database.js';
import { EventConsumer } from '../support/event-consumer.js';
import { ServiceProcess } from '../support/service-process.js';
import { waitUntil, waitWhileProgressing } from '../support/waits.js';

type Json = Record<string, any>;

// Its own: two real replicas work its job, and nothing else may claim it.
const database = useOwnDatabase('bulk_failover');
const TICKETS = 10_000;

/**
 * A bulk change of 10,000 tickets worked by two real replicas (child processes), the one holding the job's lease
 * SIGKILLed mid-job while other clients write the same tickets through the other: every ticket is changed by the job
 * exactly once, no client's write is lost, and each ticket's events go out in the order of its writes.
 */
describe('Bulk change across a replica killed mid-job', () => {
  const env = { DB_DATABASE: database, JOBS_POLL_INTERVAL: '100ms', JOBS_LEASE_TTL: '2s' };
  let replicas: ServiceProcess[] = [];
  let consumer: EventConsumer;

  beforeAll(async () => {
    consumer = await EventConsumer.bound('ticket.#');
    // One after the other: the first applies the migrations, which take no cluster-wide lock (docs/operations.md).
    replicas = [await ServiceProcess.start(env)];
    replicas.push(await ServiceProcess.start(env));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await consumer.stop();
  });

  it('changes every ticket exactly once, keeps the other clients’ writes, and publishes each ticket’s events in order', async () => {
    const requester = `failover-${randomBytes(4).toString('hex')}@example.com`;
    const db = await connectToDatabase({ database });
    const query = async (sql: string, params: unknown[] = []) => (await db.query(sql, params))[0] as Json[];
    let writing = true;
    let writers: Array<Promise<void>> = [];
    try {
      await seedTickets(db, requester, TICKETS, { title: 'Failover' });
      const ids = (await query('SELECT id FROM tickets WHERE requester_email = ? ORDER BY id', [requester])).map((row) => Number(row.id));
      const accepted = await fetch(`${replicas[0].url}/api/v2/tickets/bulk`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ filter: { requesterEmail: requester }, patch: { status: 'CLOSED' } }),
      });
      expect(accepted.status).toBe(202);
      const jobId = ((await accepted.json()) as Json).id as number;
      const job = async () => (await query('SELECT status, done, failed, total, lease_owner FROM jobs WHERE id = ?', [jobId]))[0];
      const done = async () => Number((await job()).done);
      await waitWhileProgressing(async () => (await done()) >= 1000, done, 30_000, 'a thousand tickets changed');
      const owner = String((await job()).lease_owner);
      const holder = replicas.find((replica) => owner.split(':')[1] === String(replica.pid))!;
      const other = replicas.find((replica) => replica !== holder)!;

      // Other clients write the same tickets through the other replica while the job goes on and is taken over.
      let written = 0;
      const refused: unknown[] = [];
      writers = Array.from({ length: 3 }, async (_, w) => {
        for (let n = 0; writing; n++) {
          const id = ids[(w * 3331 + n * 97) % ids.length];
          const response = await fetch(`${other.url}/api/v2/tickets/${id}`, {
            method: 'PATCH',
            headers: { 'Content-Type': 'application/merge-patch+json' },
            body: JSON.stringify({ assignedTo: `writer-${w}-${n}` }),
          });
          if (response.status === 200) written += 1;
          else refused.push([response.status, await response.text()]);
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      holder.kill('SIGKILL');
      await holder.exited;
      const doneAtKill = Number((await job()).done);
      expect(doneAtKill).toBeLessThan(TICKETS);
      // The other replica takes the job over once the lease runs out, and goes on with it.
      await waitUntil(
        async () => String((await job()).lease_owner).split(':')[1] === String(other.pid) && Number((await job()).done) > doneAtKill,
        60_000,
        'the job taken over',
      );
      // However long the machine's load makes it, the job must go on to its end: no 30 s without a ticket changed.
      await waitWhileProgressing(async () => !['running', 'queued'].includes((await job()).status), done, 30_000, 'the job finished');
      writing = false;
      await Promise.all(writers);
      expect(refused).toEqual([]);
      expect(await job()).toMatchObject({ status: 'succeeded', total: TICKETS, done: TICKETS, failed: 0 });

      // Each ticket closed by exactly one history entry (the job's change, made once), and every client's write recorded.
      const [closed] = await query(
        `SELECT COUNT(*) AS tickets, SUM((SELECT COUNT(*) FROM ticket_history h WHERE h.ticket_id = t.id AND h.action = 'UPDATED'
           AND JSON_VALUE(h.changes, '$.status.to') = 'CLOSED') = 1) AS once
         FROM tickets t WHERE t.requester_email = ? AND t.status = 'CLOSED'`,
        [requester],
      );
      expect([Number(closed.tickets), Number(closed.once)]).toEqual([TICKETS, TICKETS]);
      const [writes] = await query(
        `SELECT COUNT(*) AS n FROM ticket_history h JOIN tickets t ON t.id = h.ticket_id
         WHERE t.requester_email = ? AND JSON_VALUE(h.changes, '$.assignedTo.to') LIKE 'writer-%'`,
        [requester],
      );
      expect(written).toBeGreaterThan(0);
      expect(Number(writes.n)).toBe(written);

      // Every change reaches RabbitMQ (at least once: a replica killed between a publish and its mark may send one
      // again), each ticket's in the order of its writes.
      const expected = Number(
        (
          await query('SELECT COUNT(*) AS n FROM change_log c JOIN tickets t ON t.id = c.ticket_id WHERE t.requester_email = ?', [
            requester,
          ])
        )[0].n,
      );
      const mine = new Set(ids);
      const unique = () =>
        new Map(
          consumer
            .bodies()
            .filter((body) => mine.has(body.ticketId))
            .map((body) => [body.eventId, body]),
        );
      await waitUntil(() => unique().size >= expected, 60_000, 'every change published');
      const byTicket = new Map<number, Json[]>();
      for (const body of unique().values()) byTicket.set(body.ticketId, [...(byTicket.get(body.ticketId) ?? []), body]);
      const [ordered] = await query(
        `SELECT COUNT(*) AS n FROM change_log c JOIN tickets t ON t.id = c.ticket_id WHERE t.requester_email = ?`,
        [requester],
      );
      expect(unique().size).toBe(Number(ordered.n));
      for (const [, events] of byTicket) {
        const times = events.map((event) => Date.parse(event.ticket.updatedAt));
        expect(times).toEqual([...times].sort((a, b) => a - b));
        expect(events.filter((event) => event.ticket.status === 'CLOSED' && event.eventType === 'UPDATED').length).toBeGreaterThanOrEqual(
          1,
        );
      }
    } finally {
      writing = false;
      await Promise.allSettled(writers);
      await db.end();
    }
  }, 400_000);
});
