import { randomBytes } from 'node:crypto';
import { get as httpGet, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { eventually, OPEN_TRANSACTIONS_POLL_MS, openTransactions } from '../support/attachment-uploads.js';
import { connectToDatabase, seedTickets, useOwnDatabase } from '../support/database.js';
import { expectProblem } from '../support/problem-json.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { useTestIssuer } from '../support/test-issuer.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { waitUntil } from '../support/waits.js';
import { TicketsRepository } from '../../src/tickets/tickets.repository.js';

type Json = Record<string, any>;

const database = useOwnDatabase('export');
const address = () => `export-${randomBytes(4).toString('hex')}@example.com`;

/** GET /api/v2/tickets/export (docs/api.md#export): every match, streamed from one snapshot, as NDJSON or CSV. */
describe('Exporting tickets', () => {
  const testApp = useTestApp({ env: { DB_DATABASE: database } });
  const problem = async (request: PromiseLike<any>, status: number) => expectProblem(asHttpResponse(await request), status);
  const exported = (query: string) => testApp.http.get(`/api/v2/tickets/export?${query}`).buffer(true).parse(textBody);

  beforeAll(async () => {
    await testApp.http
      .post('/api/v2/fields')
      .send({ key: 'site', label: 'Site', type: 'enum', options: ['Berlin', 'Köln "Süd"'] })
      .expect(201);
    await testApp.http
      .post('/api/v2/fields')
      .send({ key: 'assets', label: 'Assets', type: 'multi_enum', options: ['pc 1', 'pc "2"'] })
      .expect(201);
    await testApp.http.post('/api/v2/fields').send({ key: 'cost', label: 'Cost', type: 'number' }).expect(201);
  });

  it('writes each match as its v2 body on a line of NDJSON, in id order', async () => {
    const requester = address();
    const ids: number[] = [];
    for (const [i, extra] of [{ tags: ['vpn'], fields: { site: 'Berlin' } }, { ccEmails: ['cc@example.com'] }, {}].entries()) {
      const body = { ...buildTicketRequest({ requesterEmail: requester, title: `Export ${i}` }), ...extra };
      ids.push((await testApp.http.post('/api/v2/tickets').send(body).expect(201)).body.id);
    }
    const response = await exported(`requesterEmail=${encodeURIComponent(requester)}`).expect(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const lines = (response.body as string)
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Json);
    const bodies = await Promise.all(ids.map(async (id) => (await testApp.http.get(`/api/v2/tickets/${id}`).expect(200)).body as Json));
    expect(lines).toEqual(bodies.map(({ links: _links, ...body }) => body));
  });

  it('writes CSV a real parser reads back, with a column per custom field and formulas escaped', async () => {
    const requester = address();
    const tricky = [
      { title: '=HYPERLINK("http://evil.example","click")', description: 'a, "quoted"\nmultiline text' },
      { title: '+1 printer', description: '-2 toner' },
      { title: '@SUM(A1)', description: 'plain' },
    ];
    const ids: number[] = [];
    for (const fields of tricky) {
      const body = {
        ...buildTicketRequest({ requesterEmail: requester, ...fields }),
        tags: ['a', 'b'],
        fields: { site: 'Köln "Süd"', assets: ['pc 1', 'pc "2"'] },
      };
      ids.push((await testApp.http.post('/api/v2/tickets').send(body).expect(201)).body.id);
    }
    const response = await exported(`requesterEmail=${encodeURIComponent(requester)}&format=csv`).expect(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename="tickets.csv"');
    expect((response.body as string).startsWith('\ufeffid,')).toBe(true);
    expect((response.body as string).split('\r\n')).toHaveLength(5);
    const records = parse(response.body as string, { columns: true, bom: true }) as Array<Record<string, string>>;
    expect(Object.keys(records[0])).toEqual([
      'id',
      'title',
      'description',
      'status',
      'priority',
      'requesterEmail',
      'assignedTo',
      'createdAt',
      'updatedAt',
      'resolvedAt',
      'ccEmails',
      'tags',
      'field.site',
      'field.assets',
      'field.cost',
    ]);
    expect(records.map((record) => [record.id, record.title, record.description])).toEqual([
      [String(ids[0]), `'${tricky[0].title}`, tricky[0].description],
      [String(ids[1]), `'${tricky[1].title}`, `'${tricky[1].description}`],
      [String(ids[2]), `'${tricky[2].title}`, 'plain'],
    ]);
    expect(records[0]).toMatchObject({ tags: 'a b', 'field.site': 'Köln "Süd"', 'field.assets': '["pc 1","pc \\"2\\""]', resolvedAt: '' });
    // Chosen by Accept as well.
    const accepted = await testApp.http
      .get(`/api/v2/tickets/export?requesterEmail=${encodeURIComponent(requester)}`)
      .set('Accept', 'text/csv');
    expect(accepted.headers['content-type']).toBe('text/csv; charset=utf-8');
  });

  it('streams every match as of its start while writes go on: later changes, creates and deletes are not in it', async () => {
    const requester = address();
    const db = await connectToDatabase({ database });
    try {
      await seedTickets(db, requester, 2_500, { title: 'Snapshot' });
      const [[bounds]] = (await db.query('SELECT MIN(id) AS first, MAX(id) AS last FROM tickets WHERE requester_email = ?', [
        requester,
      ])) as any;
      const [first, last] = [Number(bounds.first), Number(bounds.last)];
      // The second page waits until the writes below have committed: what it and the third read must be as of the start.
      let release!: () => void;
      const writesDone = new Promise<void>((resolve) => (release = resolve));
      let pages = 0;
      const read = TicketsRepository.prototype.matchingPage;
      const spy = jest.spyOn(TicketsRepository.prototype, 'matchingPage').mockImplementation(async function (
        this: TicketsRepository,
        ...args
      ) {
        if (++pages === 2) await writesDone;
        return read.apply(this, args);
      });
      try {
        const exporting = exported(`requesterEmail=${encodeURIComponent(requester)}`);
        const answered = exporting.then((response) => response);
        await waitUntil(async () => pages === 2, 20_000, 'the export at its second page');
        await testApp.http.patch(`/api/v2/tickets/${last}`).send({ title: 'Changed after the export began' }).expect(200);
        await testApp.http
          .post(`/api/v2/tickets/${last - 1}/tags`)
          .send({ add: ['late'] })
          .expect(200);
        await testApp.http.delete(`/api/v2/tickets/${last - 2}`).expect(204);
        await testApp.http
          .post('/api/v2/tickets')
          .send(buildTicketRequest({ requesterEmail: requester }))
          .expect(201);
        release();
        const response = await answered;
        expect(pages).toBe(3);
        const lines = (response.body as string)
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as Json);
        expect(lines.map((line) => line.id)).toEqual(Array.from({ length: 2500 }, (_, i) => first + i));
        expect(lines.slice(-3).map((line) => [line.title, line.tags])).toEqual([
          ['Snapshot 2498', []],
          ['Snapshot 2499', []],
          ['Snapshot 2500', []],
        ]);
      } finally {
        spy.mockRestore();
      }
    } finally {
      await db.end();
    }
  });

  it('ends its transaction when the client goes away', async () => {
    const requester = address();
    const db = await connectToDatabase({ database });
    try {
      await seedTickets(db, requester, 20_000, { title: 'Gone', descriptionLength: 2000 });
      const server = testApp.app.getHttpServer();
      if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const response = await new Promise<IncomingMessage>((resolve) =>
        httpGet(`http://127.0.0.1:${port}/api/v2/tickets/export?requesterEmail=${encodeURIComponent(requester)}`, resolve),
      );
      await new Promise((resolve) => response.once('data', resolve));
      // The app's workers run short statements of their own on the same database, and a read of innodb_trx may be
      // served the server's copy of a moment before (see lockWaitOf): the export's one transaction shows in time.
      const open = () => openTransactions(testApp.app);
      expect(await eventually('the export’s transaction', open, (n) => n === 1, 20, OPEN_TRANSACTIONS_POLL_MS)).toBe(1);
      response.destroy();
      expect(
        await eventually('no transaction left open after the client went away', open, (n) => n === 0, 70, OPEN_TRANSACTIONS_POLL_MS),
      ).toBe(0);
    } finally {
      await db.end();
    }
  });

  it('runs three exports at once on a replica: a fourth is a 503 until one of them ends', async () => {
    const requester = address();
    const db = await connectToDatabase({ database });
    const held: IncomingMessage[] = [];
    try {
      await seedTickets(db, requester, 20_000, { title: 'Held', descriptionLength: 2000 });
      const server = testApp.app.getHttpServer();
      if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      // Three clients that read their first bytes, then nothing: each export waits for its client, holding its turn. Each
      // is 45 MB, far more than the socket buffers on both sides hold (a few MB on loopback), so none can end unread.
      for (let i = 0; i < 3; i++) {
        const response = await new Promise<IncomingMessage>((resolve) =>
          httpGet(`http://127.0.0.1:${port}/api/v2/tickets/export?requesterEmail=${encodeURIComponent(requester)}`, resolve),
        );
        await new Promise((resolve) => response.once('data', resolve));
        response.pause();
        held.push(response);
      }
      const refused = await problem(testApp.http.get(`/api/v2/tickets/export?requesterEmail=${encodeURIComponent(requester)}`), 503);
      expect(refused.detail).toBe('3 exports are running; retry in a few seconds');
      held.pop()!.destroy();
      await waitUntil(
        async () => (await testApp.http.get(`/api/v2/tickets/export?requesterEmail=${encodeURIComponent(address())}`)).status === 200,
        10_000,
        'a turn freed by the client that went away',
      );
    } finally {
      for (const response of held) response.destroy();
      await db.end();
    }
  });

  it('writes a header alone for no match, and a negative number as a number', async () => {
    const empty = await exported(`requesterEmail=${encodeURIComponent(address())}&format=csv`).expect(200);
    expect(empty.body as string).toBe(
      '\ufeffid,title,description,status,priority,requesterEmail,assignedTo,createdAt,updatedAt,resolvedAt,ccEmails,tags,field.site,field.assets,field.cost\r\n',
    );
    const requester = address();
    await testApp.http
      .post('/api/v2/tickets')
      .send({ ...buildTicketRequest({ requesterEmail: requester }), fields: { cost: -5 } })
      .expect(201);
    const csv = (await exported(`requesterEmail=${encodeURIComponent(requester)}&format=csv`).expect(200)).body as string;
    const [record] = parse(csv, { columns: true, bom: true }) as Array<Record<string, string>>;
    expect(record['field.cost']).toBe('-5');
  });

  it('answers HEAD with the headers alone, reading nothing', async () => {
    const read = jest.spyOn(TicketsRepository.prototype, 'matchingPage');
    try {
      const head = await testApp.http.head('/api/v2/tickets/export?format=csv').expect(200);
      expect(head.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(read).not.toHaveBeenCalled();
    } finally {
      read.mockRestore();
    }
  });

  it('refuses a sort or page, an unknown format or filter', async () => {
    const named = async (query: string) => (await problem(testApp.http.get(`/api/v2/tickets/export?${query}`), 400)).errors[0].field;
    expect(await named('sort=-id')).toBe('sort');
    expect(await named('limit=10')).toBe('limit');
    expect(await named('format=xml')).toBe('format');
    expect(await named('colour=red')).toBe('colour');
    expect(await named('field.nope=1')).toBe('field.nope');
  });

  describe('with tokens', () => {
    const env: Record<string, string> = { DB_DATABASE: database };
    const tokens = useTestIssuer(env);
    const secured = useTestApp({ env });

    it('is the desk’s: a requester gets 403', async () => {
      const email = address();
      const requester = {
        Authorization: `Bearer ${await tokens.issuer.token({ claims: { scope: 'tickets.requester', email, sub: email } })}`,
      };
      expect((await problem(secured.http.get('/api/v2/tickets/export').set(requester), 403)).detail).toContain('export');
    });
  });
});

/** Collects the body as text, whatever its type (supertest parses only the types it knows). */
function textBody(res: unknown, callback: (error: Error | null, body: string) => void): void {
  const response = res as IncomingMessage;
  const chunks: Buffer[] = [];
  response.on('data', (chunk: Buffer) => chunks.push(chunk));
  response.on('end', () => callback(null, Buffer.concat(chunks).toString('utf8')));
  response.on('error', (error) => callback(error, ''));
}
