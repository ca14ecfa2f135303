import { once } from 'node:events';
import { get, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { INestApplication } from '@nestjs/common';
import { type Connection, createConnection } from 'mysql2/promise';
import { waitUntil } from '../support/waits.js';
import { EventConsumer } from '../support/event-consumer.js';
import { HttpClient, type HttpRequest, type HttpResponse, listen } from '../support/http-client.js';
import { springErrorShapeProblem } from '../support/spring-error.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { createTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

/** Short so the suite is quick; the default is 5 s. */
const DB_TIMEOUT_MS = 1_000;
/** What a request may take beyond the timeout: the 503 must come at the deadline, not whenever the database answers. */
const SLACK_MS = 1_500;

const JSON_TYPE = { 'content-type': 'application/json' };

interface StoredTicket {
  id: number;
  title: string;
  status: string;
  updatedAt: string;
  resolvedAt: string | null;
}

describe('Database and broker faults (service -> TCP proxies -> MariaDB, RabbitMQ)', () => {
  let proxy: TcpProxy;
  let brokerProxy: TcpProxy;
  let app: INestApplication;
  let client: HttpClient;
  let port: number;
  let db: Connection;
  let seeded: { id: number };

  beforeAll(async () => {
    proxy = await TcpProxy.start(Number(process.env.DB_PORT ?? 3306));
    const broker = new URL(process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
    brokerProxy = await TcpProxy.start(Number(broker.port || 5672), broker.hostname);
    broker.port = String(brokerProxy.port);
    app = await createTestApp({
      env: { DB_PORT: String(proxy.port), DB_QUERY_TIMEOUT_MS: String(DB_TIMEOUT_MS), RABBITMQ_URL: broker.toString() },
    });
    port = await listen(app);
    client = new HttpClient(port);
    db = await createConnection({
      host: process.env.DB_HOST ?? '127.0.0.1',
      port: Number(process.env.DB_PORT ?? 3306),
      user: process.env.DB_USERNAME ?? 'root',
      password: process.env.DB_PASSWORD ?? '',
      database: process.env.DB_DATABASE,
      timezone: 'Z',
    });
    seeded = JSON.parse((await post(buildTicketRequest())).body);
  });

  afterEach(async () => {
    proxy.delayMs = 0;
    proxy.restore();
    brokerProxy.restore();
    await waitUntilServing();
  });

  afterAll(async () => {
    client.close();
    await app.close();
    await proxy.stop();
    await brokerProxy.stop();
    await db.end();
  });

  const post = (body: object) => client.send({ method: 'POST', path: '/api/tickets', headers: JSON_TYPE, body: JSON.stringify(body) });

  const everyEndpoint = (): HttpRequest[] => [
    { method: 'GET', path: '/api/tickets' },
    { method: 'GET', path: `/api/tickets/${seeded.id}` },
    { method: 'POST', path: '/api/tickets', headers: JSON_TYPE, body: JSON.stringify(buildTicketRequest()) },
    { method: 'PUT', path: `/api/tickets/${seeded.id}`, headers: JSON_TYPE, body: JSON.stringify(buildTicketRequest()) },
    { method: 'DELETE', path: '/api/tickets/987654321' },
  ];

  async function timed(request: HttpRequest): Promise<HttpResponse & { ms: number }> {
    const started = Date.now();
    const response = await client.send(request);
    return { ...response, ms: Date.now() - started };
  }

  async function waitUntilServing(timeoutMs = 15_000): Promise<number> {
    const started = Date.now();
    for (;;) {
      const { status } = await client.send({ method: 'GET', path: `/api/tickets/${seeded.id}` });
      if (status === 200) return Date.now() - started;
      if (Date.now() - started > timeoutMs) throw new Error(`Still ${status} ${timeoutMs} ms after the database came back`);
      await sleep(100);
    }
  }

  function expect503(response: HttpResponse & { ms: number }, request: HttpRequest) {
    expect({
      request: `${request.method} ${request.path}`,
      status: response.status,
      shape: springErrorShapeProblem(response, request.path.split('?')[0]),
    }).toEqual({ request: `${request.method} ${request.path}`, status: 503, shape: undefined });
    expect(response.ms).toBeLessThan(DB_TIMEOUT_MS + SLACK_MS);
  }

  async function health(): Promise<{ status: number; db: string; rabbit: string }> {
    const response = await client.send({ method: 'GET', path: '/actuator/health' });
    const body = JSON.parse(response.body);
    return { status: response.status, db: body.components.db.status, rabbit: body.components.rabbit.status };
  }

  it('answers 503 in the error shape, within the timeout, on every endpoint while the connection is cut', async () => {
    proxy.cut();
    for (const request of everyEndpoint()) expect503(await timed(request), request);
    expect(await health()).toMatchObject({ status: 503, db: 'DOWN' });
  });

  it('answers 503 within the timeout on every endpoint while the database answers too slowly', async () => {
    proxy.delayMs = 3 * DB_TIMEOUT_MS;
    const requests = everyEndpoint();
    const responses = await Promise.all(requests.map(timed));
    responses.forEach((response, i) => expect503(response, requests[i]));
  });

  it('answers 503 within the timeout during a network partition, and recovers once it heals', async () => {
    // Queries sent meanwhile never get their answer: the connections they hold are useless from then on.
    proxy.stall();
    // More requests than the pool has connections (20), so that every pooled connection is caught.
    const requests = [...everyEndpoint(), ...Array.from({ length: 20 }, () => everyEndpoint()[1])];
    const responses = await Promise.all(requests.map(timed));
    responses.forEach((response, i) => expect503(response, requests[i]));
    proxy.restore();
    await waitUntilServing();
    // Every pooled connection is usable again: a burst wider than the pool is served in full.
    const burst = await Promise.all(Array.from({ length: 30 }, () => client.send({ method: 'GET', path: `/api/tickets/${seeded.id}` })));
    expect(burst.map((r) => r.status)).toEqual(Array(30).fill(200));
  });

  it('has the database stop a read at the deadline: no statement of it is left running after its 503', async () => {
    const runningReads = async () =>
      (
        await db.query(
          "SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND info LIKE '%tickets%' AND info NOT LIKE '%processlist%'",
        )
      )[0] as Array<{ id: number }>;
    // Every read of tickets now computes for hours, like a heavy scan, which notices no closed connection (SLEEP
    // would, within seconds): only the server's own time limit or KILL stops it.
    await db.query('RENAME TABLE tickets TO tickets_stored');
    await db.query("CREATE VIEW tickets AS SELECT * FROM tickets_stored WHERE BENCHMARK(10000000000, SHA2('x', 256)) = 0");
    try {
      const response = await client.send({ method: 'GET', path: '/api/v2/tickets' });
      expect(response.status).toBe(503);
      await waitUntil(async () => (await runningReads()).length === 0, 10_000, 'no read of the request left in the database');
    } finally {
      for (const { id } of await runningReads()) await db.query('KILL QUERY ?', [id]);
      await db.query('DROP VIEW tickets');
      await db.query('RENAME TABLE tickets_stored TO tickets');
    }
    // The connections went back to the pool clean (or were replaced): the next reads are answered.
    for (let i = 0; i < 25; i++) expect((await client.send({ method: 'GET', path: '/api/v2/tickets?limit=1' })).status).toBe(200);
  });

  describe('a streamed list (GET /api/tickets, unpaged) abandoned before its end', () => {
    const runningLists = async () =>
      (
        await db.query(
          "SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND info LIKE '%SELECT CONCAT(%FROM tickets%' AND info NOT LIKE '%processlist%'",
        )
      )[0] as Array<{ id: number }>;

    /** Every read of tickets past the row with id `through` computes for hours, and notices no closed connection. */
    async function slowTicketsAfter(through: number, work: () => Promise<void>): Promise<void> {
      await db.query('RENAME TABLE tickets TO tickets_stored');
      await db.query(
        `CREATE VIEW tickets AS SELECT * FROM tickets_stored WHERE id <= ${through} OR BENCHMARK(10000000000, SHA2(title, 256)) = 1`,
      );
      try {
        await work();
      } finally {
        for (const { id } of await runningLists()) await db.query('KILL QUERY ?', [id]).catch(() => undefined); // ended meanwhile
        await db.query('DROP VIEW tickets');
        await db.query('RENAME TABLE tickets_stored TO tickets');
      }
    }

    it('is stopped in the database when its first row did not come within the deadline: nothing of it runs 1 s after its 503', async () => {
      await slowTicketsAfter(0, async () => {
        const response = await client.send({ method: 'GET', path: '/api/tickets?sort=-updatedAt,priority' });
        expect(response.status).toBe(503);
        await sleep(1_000);
        expect(await runningLists()).toEqual([]);
      });
    });

    it('answers 503 when its connection is lost before the first row, and the service goes on serving', async () => {
      await slowTicketsAfter(0, async () => {
        const answer = client.send({ method: 'GET', path: '/api/tickets' });
        await waitUntil(async () => (await runningLists()).length === 1, 10_000, 'the list scanning for its first row');
        const [{ id }] = await runningLists();
        await db.query('KILL CONNECTION ?', [id]);
        expect((await answer).status).toBe(503);
      });
      expect((await client.send({ method: 'GET', path: '/api/tickets' })).status).toBe(200);
    });

    it('is stopped in the database when its client goes away after the first rows: nothing of it runs 1 s later', async () => {
      // More than the server's network buffer (16 KiB) of rows that come at once, which it sends before it scans
      // on; then rows that each take hours to scan.
      for (let i = 0; i < 20; i++) expect((await post(buildTicketRequest({ description: 'd'.repeat(2_000) }))).status).toBe(201);
      const [[{ fast }]] = await db.query<any[]>('SELECT MAX(id) AS fast FROM tickets');
      for (let i = 0; i < 2; i++) expect((await post(buildTicketRequest())).status).toBe(201);
      await slowTicketsAfter(fast, async () => {
        const request = get({ host: '127.0.0.1', port, path: '/api/tickets' });
        request.on('error', () => undefined);
        const [response] = (await once(request, 'response')) as [IncomingMessage];
        expect(response.statusCode).toBe(200);
        const [chunk] = (await once(response, 'data')) as [Buffer];
        expect(chunk.toString()).toMatch(/^\[\{"id":/);
        await waitUntil(async () => (await runningLists()).length === 1, 10_000, 'the list scanning for its next row');
        request.destroy();
        await sleep(1_000);
        expect(await runningLists()).toEqual([]);
      });
    });
  });

  it('has the database stop a write at the deadline: a write waiting for a row lock is not left waiting after its 503', async () => {
    const waitingWrites = async () =>
      (
        await db.query(
          "SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND info LIKE '%FOR UPDATE%' AND info NOT LIKE '%processlist%'",
        )
      )[0] as Array<{ id: number }>;
    // The test's own connection holds the ticket's row lock; the update's SELECT … FOR UPDATE waits for it, which
    // InnoDB alone would let it do for innodb_lock_wait_timeout (50 s).
    await db.query('START TRANSACTION');
    await db.query('SELECT id FROM tickets WHERE id = ? FOR UPDATE', [seeded.id]);
    try {
      const request = { method: 'PUT', path: `/api/tickets/${seeded.id}`, headers: JSON_TYPE, body: JSON.stringify(buildTicketRequest()) };
      expect503(await timed(request), request);
      await sleep(1_000);
      expect(await waitingWrites()).toEqual([]);
    } finally {
      for (const { id } of await waitingWrites()) await db.query('KILL QUERY ?', [id]);
      await db.query('ROLLBACK');
    }
  });

  it('does not carry out later a write it answered 503 to', async () => {
    // The deadline passes during the first of an update's two round trips (START TRANSACTION with SELECT … FOR
    // UPDATE, then its statements with COMMIT): whichever bound answers first (the deadline's 503 or the statement
    // timeout, which destroys the connection), the second round trip never goes out and nothing is written later.
    proxy.delayMs = (DB_TIMEOUT_MS * 3) / 5;
    const title = `abandoned ${Date.now()}`;
    const request = {
      method: 'PUT',
      path: `/api/tickets/${seeded.id}`,
      headers: JSON_TYPE,
      body: JSON.stringify(buildTicketRequest({ title })),
    };
    expect503(await timed(request), request);
    await sleep(4 * DB_TIMEOUT_MS);
    const [rows] = await db.query<any[]>('SELECT id FROM tickets WHERE title = ?', [title]);
    expect(rows).toEqual([]);
  });

  it('answers a write whose COMMIT went out before the deadline with what the COMMIT did, even when it answers after', async () => {
    // A create's two round trips (START TRANSACTION with the INSERT, then its other statements with COMMIT) take
    // longer than the deadline together; the second, COMMIT with it, goes out before it and commits after it.
    proxy.delayMs = DB_TIMEOUT_MS / 3;
    const title = `committed late ${Date.now()}`;
    const response = await timed({
      method: 'POST',
      path: '/api/tickets',
      headers: JSON_TYPE,
      body: JSON.stringify(buildTicketRequest({ title })),
    });
    expect(response.status).toBe(201);
    expect(response.ms).toBeGreaterThan(DB_TIMEOUT_MS);
    const [rows] = await db.query<any[]>('SELECT id FROM tickets WHERE title = ?', [title]);
    expect(rows).toEqual([{ id: JSON.parse(response.body).id }]);
  });

  it('answers 503 at the deadline to a write with an Idempotency-Key, without waiting to give the key up, and frees the key', async () => {
    // The key's claim and the create's first round trip take longer than the deadline together.
    proxy.delayMs = DB_TIMEOUT_MS / 3;
    const key = `deadline-${Date.now()}`;
    const body = JSON.stringify(buildTicketRequest({ title: key }));
    const request = { method: 'POST', path: '/api/tickets', headers: { ...JSON_TYPE, 'idempotency-key': key }, body };
    const response = await timed(request);
    expect503(response, request);
    // Giving the key up is one more round trip through the slow proxy (2 × DB_TIMEOUT_MS / 3): not waited for.
    expect(response.ms).toBeLessThan(DB_TIMEOUT_MS + DB_TIMEOUT_MS / 2);
    proxy.delayMs = 0;
    await sleep(2 * DB_TIMEOUT_MS);
    const retry = await client.send(request);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const [rows] = await db.query<any[]>('SELECT id FROM tickets WHERE title = ?', [key]);
    expect(rows).toEqual([{ id: JSON.parse(retry.body).id }]);
  });

  it('recovers by itself, without a restart, once the database is back', async () => {
    proxy.cut();
    expect((await client.send({ method: 'GET', path: '/api/tickets' })).status).toBe(503);
    proxy.restore();
    await waitUntilServing();
    const created = await post(buildTicketRequest());
    expect(created.status).toBe(201);
    expect(await health()).toEqual({ status: 200, db: 'UP', rabbit: 'UP' });
  });

  it('loses no acknowledged write while the database is cut and partitioned again and again, and publishes each', async () => {
    const consumer = await EventConsumer.start();
    const acknowledged: StoredTicket[] = [];
    const statuses: Record<number, number> = {};
    let faults = 0;
    let running = true;

    const injectFaults = async () => {
      try {
        for (let round = 0; round < 6; round++) {
          await sleep(300);
          if (round % 2 === 0) proxy.cut();
          else proxy.stall();
          if (round === 2) {
            brokerProxy.cut();
            expect(await health()).toMatchObject({ status: 503, rabbit: 'DOWN' });
          }
          faults++;
          await sleep(500);
          proxy.restore();
        }
      } finally {
        // Also when an expectation fails: the writers must stop and the proxies pass traffic for the next tests.
        proxy.restore();
        brokerProxy.restore();
        running = false;
      }
    };
    const write = async (writer: number) => {
      let mine: StoredTicket | undefined;
      for (let i = 0; running; i++) {
        const body = JSON.stringify(
          buildTicketRequest({ title: `writer ${writer} write ${i}`, status: i % 4 === 3 ? 'RESOLVED' : 'IN_PROGRESS' }),
        );
        const response =
          mine && i % 3 !== 0
            ? await client.send({ method: 'PUT', path: `/api/tickets/${mine.id}`, headers: JSON_TYPE, body })
            : await client.send({ method: 'POST', path: '/api/tickets', headers: JSON_TYPE, body });
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        if (response.status < 300) acknowledged.push((mine = JSON.parse(response.body)));
      }
    };
    await Promise.all([injectFaults(), ...Array.from({ length: 6 }, (_, writer) => write(writer))]);

    // Every answer was a success or a clean 503; never a 500.
    expect(Object.keys(statuses).sort()).toEqual(['200', '201', '503']);
    // Each acknowledged write is in the database: as acknowledged, or overtaken by a later write of the same
    // ticket (one that committed although its client got a 503 because the answer was lost on the way).
    const [rows] = await db.query<any[]>('SELECT id, title, status, updated_at, resolved_at FROM tickets WHERE id IN (?)', [
      [...new Set(acknowledged.map((ticket) => ticket.id))],
    ]);
    const stored = new Map(rows.map((row) => [Number(row.id), row]));
    const found = acknowledged.filter((ack) => {
      const row = stored.get(ack.id);
      const rowUpdatedAt = (row?.updated_at as Date | undefined)?.toISOString() ?? '';
      return rowUpdatedAt > ack.updatedAt || (rowUpdatedAt === ack.updatedAt && row.title === ack.title && row.status === ack.status);
    });
    expect(found).toEqual(acknowledged);
    // ...and its event reaches the broker once both are back.
    const published = () => new Set(consumer.bodies().map((event) => `${event.ticketId}@${event.ticket.updatedAt}`));
    await consumer.waitFor(() => acknowledged.every((ack) => published().has(`${ack.id}@${ack.updatedAt}`)), 20_000);
    await consumer.stop();

    console.log(
      `Faults injected: ${faults} database (+1 broker); requests: ${JSON.stringify(statuses)}; ` +
        `writes acknowledged ${acknowledged.length}, found ${found.length} (${stored.size} tickets), events published for all`,
    );
  });
});
