import { decodeChangeCursor } from '../../src/changes/change-cursor.js';
import { FeedWalker, readFeed } from '../support/change-feed.js';
import { EventConsumer } from '../support/event-consumer.js';
import { ServiceProcess } from '../support/service-process.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

type Json = Record<string, any>;

const TICKETS = 100;
const DELETES = 20;
const WRITES = 2_000;
const CONCURRENCY = 32;

/** Runs `tasks` with at most `limit` at a time. */
async function pool(tasks: Array<() => Promise<void>>, limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

async function write(url: string, method: string, path: string, body?: object): Promise<Json> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text ? (JSON.parse(text) as Json) : {};
}

/** Each ticket's eventIds in the order given, first occurrence only (RabbitMQ delivers at least once). */
function perTicket(events: Json[]): Map<number, string[]> {
  const byTicket = new Map<number, string[]>();
  for (const event of events) {
    const ids = byTicket.get(event.ticketId) ?? [];
    if (!ids.includes(event.eventId)) ids.push(event.eventId);
    byTicket.set(event.ticketId, ids);
  }
  return byTicket;
}

describe('Change feed across two service processes on one database', () => {
  const replicas: ServiceProcess[] = [];
  let consumer: EventConsumer;

  beforeAll(async () => {
    consumer = await EventConsumer.bound('ticket.#');
    // One after the other: the first applies the migrations.
    replicas.push(await ServiceProcess.start());
    replicas.push(await ServiceProcess.start());
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await consumer?.stop();
  }, 60_000);

  it('walked during 2,000 concurrent writes, it gives exactly the events published to RabbitMQ, once each, each ticket in order', async () => {
    const start = new FeedWalker(replicas[0].url);
    await start.catchUp();
    // Pages alternate between the replicas, so reads come from both while both write; at the end of the stream
    // a read long-polls, as a consumer would.
    const seen: Json[] = [];
    let cursor = start.cursor;
    const expected = new Set<string>();
    let published = false;
    const complete = () => published && seen.filter((item) => expected.has(item.eventId)).length >= expected.size;
    const walk = (async () => {
      const deadline = Date.now() + 240_000;
      let endOfStream = false;
      for (let turn = 0; !complete(); turn++) {
        if (Date.now() > deadline) throw new Error(`The feed did not deliver every published event in time (${seen.length} read)`);
        const page = await readFeed(replicas[turn % 2].url, {
          after: cursor,
          limit: turn % 3 === 0 ? 7 : 500,
          waitSeconds: endOfStream ? 1 : 0,
        });
        seen.push(...page.items);
        cursor = page.nextCursor;
        endOfStream = page.endOfStream;
      }
    })();

    const url = (i: number) => replicas[i % 2].url;
    const tickets: number[] = [];
    await pool(
      Array.from({ length: TICKETS }, (_, i) => async () => {
        tickets.push((await write(url(i), 'POST', i % 2 ? '/api/tickets' : '/api/v2/tickets', buildTicketRequest())).id);
      }),
      CONCURRENCY,
    );
    const updates = WRITES - TICKETS - DELETES;
    await pool(
      Array.from({ length: updates }, (_, i) => async () => {
        const ticket = tickets[(i * 7) % TICKETS];
        if (i % 3 === 0) await write(url(i), 'POST', `/api/tickets/${ticket}/comments`, { body: `note ${i}` });
        else await write(url(i + 1), 'PATCH', `/api/v2/tickets/${ticket}`, { assignedTo: `desk-${i}` });
      }),
      CONCURRENCY,
    );
    await pool(
      tickets.slice(0, DELETES).map((ticket, i) => async () => {
        await write(url(i), 'DELETE', `/api/tickets/${ticket}`);
      }),
      CONCURRENCY,
    );

    const ours = new Set(tickets);
    const ofOurs = () => consumer.bodies().filter((event) => ours.has(event.ticketId));
    await consumer.waitFor(() => new Set(ofOurs().map((event) => event.eventId)).size >= WRITES, 120_000);
    for (const event of ofOurs()) expected.add(event.eventId);
    published = true;
    await walk;

    const feed = seen.filter((item) => ours.has(item.ticketId));
    const feedIds = feed.map((item) => item.eventId);
    expect(feedIds.length).toBe(new Set(feedIds).size);
    expect(new Set(feedIds)).toEqual(expected);
    expect(expected.size).toBe(WRITES);
    // Cursors only go forward.
    const positions = seen.map((item) => decodeChangeCursor(item.cursor)!);
    expect(positions.every((position, i) => i === 0 || position > positions[i - 1])).toBe(true);
    // Each ticket's changes in the order RabbitMQ got them, which the relay keeps per ticket in commit order.
    expect(perTicket(feed)).toEqual(perTicket(ofOurs()));
    for (const ticket of tickets.slice(0, DELETES))
      expect(feed.filter((item) => item.ticketId === ticket).at(-1)).toMatchObject({ eventType: 'DELETED', ticket: null });
  }, 400_000);
});
