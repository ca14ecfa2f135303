import { randomBytes } from 'node:crypto';
import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { type ApiVersion, walkPages } from '../support/ticket-lists.js';

const STABLE = 1_000;
const DOOMED_PER_WALK = 60;
const PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];

/**
 * A walk through the pages never repeats a ticket, and never misses one that existed for the whole walk,
 * while other requests create, update and delete tickets of the same list at the same time. Updates here
 * change status, title and updatedAt but not the walk's sort keys: a ticket whose sort key changes during
 * a walk moves to its new place in the order, which the walk sees (or not) wherever that is.
 */
describe('Cursor walks under concurrent writes', () => {
  const testApp = useTestApp();
  const tag = `walk-${randomBytes(4).toString('hex')}`;
  const stable = new Map<number, Record<string, unknown>>();

  const create = async (overrides: Record<string, unknown> = {}) =>
    (
      await testApp.http
        .post('/api/tickets')
        .send(buildTicketRequest({ assignedTo: tag, ...overrides }))
        .expect(201)
    ).body;

  async function inBatches<T>(count: number, size: number, run: (i: number) => Promise<T>): Promise<T[]> {
    const results: T[] = [];
    for (let start = 0; start < count; start += size) {
      results.push(...(await Promise.all(Array.from({ length: Math.min(size, count - start) }, (_, k) => run(start + k)))));
    }
    return results;
  }

  beforeAll(async () => {
    const tickets = await inBatches(STABLE, 16, (i) => create({ priority: PRIORITIES[i % 4], title: `Walk ticket ${i}` }));
    for (const ticket of tickets) stable.set(ticket.id, ticket);
  }, 120_000);

  /** Writes until stopped: creates tickets into the list, updates stable ones, deletes the doomed ones. */
  function writer(doomed: number[]) {
    let running = true;
    let n = 0;
    const stableIds = [...stable.keys()];
    const loop = (async () => {
      while (running) {
        const step = n++ % 3;
        if (step === 0) await create({ priority: PRIORITIES[n % 4], title: `Created during the walk ${n}` });
        if (step === 1) {
          const ticket = stable.get(stableIds[(n * 7919) % stableIds.length])!;
          const body = buildTicketRequest({ ...ticket, assignedTo: tag, status: n % 2 ? 'IN_PROGRESS' : 'OPEN', title: `Updated ${n}` });
          await testApp.http.put(`/api/tickets/${ticket.id}`).send(body).expect(200);
        }
        if (step === 2 && doomed.length > 0) await testApp.http.delete(`/api/tickets/${doomed.pop()}`).expect(204);
      }
    })();
    return async () => {
      running = false;
      await loop;
      return n;
    };
  }

  it.each<[ApiVersion, string]>([
    ['v1', 'limit=37'],
    ['v2', 'limit=37&sort=-createdAt'],
    ['v2', 'limit=41&sort=-priority,createdAt&total=false'],
  ])(
    '%s ?%s: no ticket twice, none of those that stayed missing',
    async (version, query) => {
      const doomed = (await inBatches(DOOMED_PER_WALK, 16, () => create({ title: 'Deleted during the walk' }))).map((ticket) => ticket.id);
      const stop = writer([...doomed]);
      let pages: number[][];
      let writes: number;
      try {
        // Pages are fetched while the writer runs, and each also waits for a burst of writes of its own.
        pages = await walkPages(testApp.http, version, `assignedTo=${tag}&${query}`, async () => {
          await create();
        });
      } finally {
        writes = await stop();
      }
      expect(writes).toBeGreaterThan(pages.length);
      const seen = pages.flat();
      expect(seen.length - new Set(seen).size).toBe(0);
      const missing = [...stable.keys()].filter((id) => !seen.includes(id));
      expect(missing).toEqual([]);
      expect(pages.length).toBeGreaterThan(STABLE / 41);
    },
    120_000,
  );
});
