import type { Connection } from 'mysql2/promise';
import { connectToDatabase } from '../support/database.js';
import { useTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';

/**
 * The request deadline's budget belongs to each application (its Database), not to the process: two apps booted in
 * one process with different DB_QUERY_TIMEOUT_MS keep their own, whichever was booted last.
 */
describe('request deadline', () => {
  const short = useTestApp({ env: { DB_QUERY_TIMEOUT_MS: '300' } });
  const long = useTestApp({ env: { DB_QUERY_TIMEOUT_MS: '5000' } });
  let locker: Connection;

  beforeAll(async () => {
    locker = await connectToDatabase();
  });

  afterAll(async () => {
    await locker.end();
  });

  /** Holds the ticket's row lock for `ms` from a connection of the test's own. */
  async function lockRow(id: number, ms: number): Promise<void> {
    await locker.query('START TRANSACTION');
    await locker.query('SELECT id FROM tickets WHERE id = ? FOR UPDATE', [id]);
    setTimeout(() => void locker.query('ROLLBACK'), ms);
  }

  it('answers 503 at its own app budget while a write waits for a row lock, and the other app waits longer', async () => {
    const ticket = (await createTicket(long.http)).body as { id: number };
    await lockRow(ticket.id, 1_000);
    const startedAt = Date.now();
    const [shortAnswer, longAnswer] = await Promise.all([
      short.http.patch(`/api/tickets/${ticket.id}`).send({ priority: 'HIGH' }),
      long.http.patch(`/api/tickets/${ticket.id}`).send({ priority: 'LOW' }),
    ]);
    expect(shortAnswer.status).toBe(503);
    expect(shortAnswer.body.message).toBe('Database did not answer within 300 ms, try again later');
    expect(longAnswer.status).toBe(200);
    expect(longAnswer.body.priority).toBe('LOW');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_000);
    // The short app's abandoned write did not land after the lock went: the ticket is the long app's.
    expect((await long.http.get(`/api/tickets/${ticket.id}`).expect(200)).body.priority).toBe('LOW');
  });
});
