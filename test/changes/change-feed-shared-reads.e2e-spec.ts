import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { ChangeFeedRepository } from '../../src/changes/change-feed.repository.js';
import { FeedWalker, readFeed } from '../support/change-feed.js';
import { waitUntil } from '../support/waits.js';
import { listen } from '../support/http-client.js';
import { useOwnDatabase } from '../support/database.js';
import { createTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

const READERS = 20;
/**
 * On a database of its own: changes other suites of the run committed just before may be numbered after the walker
 * caught up, and would reach the waiting readers with this test's change.
 */
const database = useOwnDatabase('shared_reads');

describe('Change feed long-polls waiting at one position', () => {
  let app: INestApplication;
  let baseUrl: string;

  beforeAll(async () => {
    app = await createTestApp({ env: { DB_DATABASE: database, CHANGES_STREAMS_PER_CLIENT: String(READERS) } });
    baseUrl = `http://127.0.0.1:${await listen(app)}`;
  });

  afterAll(async () => {
    await app?.close();
  });

  it('are answered by one read of the feed when a change wakes them, each with the change', async () => {
    const walker = new FeedWalker(baseUrl);
    await walker.catchUp();
    const feed = app.get(ChangeFeedRepository);
    const page = feed.page.bind(feed);
    let finished = 0;
    const reads = jest.spyOn(feed, 'page').mockImplementation(async (afterSeq, limit) => {
      try {
        return await page(afterSeq, limit);
      } finally {
        finished++;
      }
    });
    try {
      const waiting = Array.from({ length: READERS }, () => readFeed(baseUrl, { after: walker.cursor, waitSeconds: 30 }));
      // Each reader's first read found nothing after the cursor: all of them wait.
      await waitUntil(() => finished === READERS, 20_000, 'every reader waiting');
      expect(reads).toHaveBeenCalledTimes(READERS);

      const response = await fetch(`${baseUrl}/api/tickets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(buildTicketRequest()),
      });
      expect(response.status).toBe(201);
      const ticket = (await response.json()) as { id: number };

      const pages = await Promise.all(waiting);
      for (const { items } of pages) expect(items.map((item) => [item.ticketId, item.eventType])).toEqual([[ticket.id, 'CREATED']]);
      expect(new Set(pages.map(({ nextCursor }) => nextCursor)).size).toBe(1);
      expect(reads).toHaveBeenCalledTimes(READERS + 1);
    } finally {
      reads.mockRestore();
    }
  });
});
