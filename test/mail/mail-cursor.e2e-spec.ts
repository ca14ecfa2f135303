import request from 'supertest';
import { useTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { connectToDatabase, useOwnDatabase } from '../support/database.js';
import { waitUntil } from '../support/waits.js';
import { Database } from '../../src/database/database.js';
import { ChangeFeedRepository } from '../../src/changes/change-feed.repository.js';
import { MailNotificationsRepository } from '../../src/mail/outbound/mail-notifications.repository.js';

/**
 * On a database of its own: retention weighs every reader of the log, and the webhook endpoints other suites leave
 * enabled in the worker's database would hold it back too.
 */
const database = useOwnDatabase('mail_cursor');

/** The notifier's place in the change log, as retention sees it. */
describe('The mail notifier’s cursor in the change log', () => {
  // Mail is off in this app: the notifier never moves, so the test sets its cursor as each case needs.
  const handle = useTestApp({ env: { DB_DATABASE: database } });

  async function numbered(count: number): Promise<number> {
    const db = await connectToDatabase({ database });
    try {
      for (let i = 0; i < count; i++) await createTicket(request(handle.app.getHttpServer()));
      let lastSeq = 0;
      await waitUntil(
        async () => {
          const [rows] = (await db.query(
            `SELECT s.last_seq AS lastSeq, (SELECT COUNT(*) FROM change_log WHERE seq IS NULL OR relay_status <> 'published') AS waiting
             FROM change_feed_sequencer s WHERE s.id = 1`,
          )) as unknown as [Array<{ lastSeq: string; waiting: string }>];
          lastSeq = Number(rows[0].lastSeq);
          return Number(rows[0].waiting) === 0;
        },
        10_000,
        'every change numbered and published',
      );
      return lastSeq;
    } finally {
      await db.end();
    }
  }

  async function setCursor(through: number, movedDaysAgo: number): Promise<void> {
    const db = await connectToDatabase({ database });
    try {
      await db.query(
        `INSERT INTO mail_notifier (id, notified_through, moved_at) VALUES (1, ?, NOW(3) - INTERVAL ? DAY)
         ON DUPLICATE KEY UPDATE notified_through = VALUES(notified_through), moved_at = VALUES(moved_at)`,
        [through, movedDaysAgo],
      );
    } finally {
      await db.end();
    }
  }

  it('holds retention back while it moves, and not once it has stood still for a day (mail switched off)', async () => {
    const last = await numbered(3);
    const feed = handle.app.get(ChangeFeedRepository);
    const pool = handle.app.get(Database);
    await setCursor(last - 2, 0);
    const held = await feed.oldest(pool, last - 3, 10, 0);
    expect(held.map(({ seq, expired }) => [seq, expired])).toEqual([
      [last - 2, true],
      [last - 1, false],
      [last, false],
    ]);
    await setCursor(last - 2, 2);
    expect((await feed.oldest(pool, last - 3, 10, 0)).every(({ expired }) => expired)).toBe(true);
  });

  it('goes on from the changes numbered now when mail comes back after more than a day, and not before', async () => {
    const last = await numbered(2);
    const notifications = handle.app.get(MailNotificationsRepository);
    await setCursor(last - 2, 0);
    expect(await notifications.skipStale()).toBe(0);
    expect(await notifications.cursor()).toBe(last - 2);
    await setCursor(last - 2, 2);
    expect(await notifications.skipStale()).toBe(2);
    expect(await notifications.cursor()).toBe(last);
  });

  it('records no notification and stays where it is while mail is off', async () => {
    await setCursor(0, 0);
    const server = request(handle.app.getHttpServer());
    const ticket = (await createTicket(server)).body as { id: number };
    await server
      .post(`/api/v2/tickets/${ticket.id}/comments`)
      .send({ body: 'An answer the requester would be mailed', author: 'agent@example.com' })
      .expect(201);
    await numbered(1);
    const db = await connectToDatabase({ database });
    try {
      // A pass woken by the numbering could still be running: watched for a second, nothing may move.
      for (const watchUntil = Date.now() + 1_000; Date.now() < watchUntil; await new Promise((resolve) => setTimeout(resolve, 50))) {
        const [rows] = (await db.query(
          'SELECT (SELECT COUNT(*) FROM mail_notifications) AS recorded, (SELECT notified_through FROM mail_notifier WHERE id = 1) AS through',
        )) as unknown as [Array<{ recorded: string; through: string }>];
        expect({ recorded: Number(rows[0].recorded), cursor: Number(rows[0].through) }).toEqual({ recorded: 0, cursor: 0 });
      }
    } finally {
      await db.end();
    }
  });
});
