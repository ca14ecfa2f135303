import { type IncomingMessage, request as httpRequest } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { listen } from '../support/http-client.js';
import { createTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import {
  abortedMultipart,
  abortedUpload,
  attachmentRowCounts,
  binaryBytes,
  download,
  eventually,
  MiB,
  openTransactions,
  OPEN_TRANSACTIONS_POLL_MS,
  sha256,
  trickledUpload,
  uploadMultipart,
  uploadInProgress,
  uploadRaw,
} from '../support/attachment-uploads.js';

const MAX = 25 * MiB;

describe('Attachments: upload, download, list, delete (database storage)', () => {
  let app: INestApplication;
  let http: ReturnType<typeof request>;
  let port: number;

  beforeAll(async () => {
    app = await createTestApp();
    port = await listen(app);
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await app?.close();
  });

  async function newTicket(collection = '/api/tickets'): Promise<number> {
    return (await createTicket(http, {}, collection)).body.id;
  }

  describe.each([
    ['multipart', uploadMultipart],
    ['raw', uploadRaw],
  ])('a %s upload', (_kind, upload) => {
    it.each([
      ['1 byte', 1],
      ['1 MiB', MiB],
      ['1 MiB + 1 byte', MiB + 1],
      ['25 MiB', MAX],
    ])('round-trips %s byte for byte', async (_label, size) => {
      const id = await newTicket();
      const bytes = binaryBytes(size);
      const created = await upload(http, `/api/tickets/${id}/attachments`, bytes, 'dump.bin').expect(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        ticketId: id,
        filename: 'dump.bin',
        contentType: 'application/octet-stream',
        size,
        sha256: sha256(bytes),
        createdAt: expect.stringMatching(/Z$/),
        createdBy: null,
      });
      expect(created.headers.location).toBe(`/api/tickets/${id}/attachments/${created.body.id}`);
      const content = await download(http, `${created.headers.location}/content`).then((r) => r.bytes);
      expect(content.length).toBe(size);
      expect(sha256(content)).toBe(sha256(bytes));
    });

    it('answers 400 for an empty file and stores nothing', async () => {
      const id = await newTicket();
      const before = await attachmentRowCounts(app);
      const response = await upload(http, `/api/tickets/${id}/attachments`, Buffer.alloc(0)).expect(400);
      expect(response.body).toMatchObject({ status: 400, message: 'The attachment is empty' });
      expect(await attachmentRowCounts(app)).toEqual(before);
    });

    it('answers 413 for 25 MiB + 1 byte and stores nothing', async () => {
      const id = await newTicket();
      const before = await attachmentRowCounts(app);
      const response = await upload(http, `/api/tickets/${id}/attachments`, binaryBytes(MAX + 1));
      expect(response.status).toBe(413);
      expect(response.body.message).toBe(`Attachment is larger than ${MAX} bytes (ATTACHMENTS_MAX_FILE_SIZE)`);
      await eventually(
        'the upload rolled back',
        () => uploadInProgress(app, id),
        (busy) => !busy,
      );
      expect(await attachmentRowCounts(app)).toEqual(before);
    });
  });

  it('answers 413 at once for a raw body whose Content-Length is too large, without waiting for it', async () => {
    const id = await newTicket();
    const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api/v2/tickets/${id}/attachments`,
        headers: { 'content-type': 'application/octet-stream', 'content-length': MAX + 1 },
      });
      req.on('response', (res: IncomingMessage) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode!, body });
          req.destroy();
        });
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ status: 413, title: 'Payload Too Large' });
  });

  it('answers 413 to a chunked body once it passes the limit, before it ends, and closes the connection', async () => {
    const id = await newTicket();
    const before = await attachmentRowCounts(app);
    const answer = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api/tickets/${id}/attachments`,
        headers: { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
      });
      let answered: { status: number; connection: string | undefined } | undefined;
      req.on('response', (res: IncomingMessage) => {
        answered = { status: res.statusCode!, connection: res.headers.connection };
        res.resume();
      });
      // The server closes the connection: the body, never ended, is not waited for.
      req.on('close', () => (answered ? resolve(answered) : reject(new Error('closed without an answer'))));
      req.on('error', () => undefined);
      let sent = 0;
      const more = () => {
        if (answered || req.destroyed || sent > MAX + MiB) return;
        sent += MiB;
        req.write(binaryBytes(MiB), more);
      };
      more();
    });
    expect(answer).toEqual({ status: 413, connection: 'close' });
    expect(await attachmentRowCounts(app)).toEqual(before);
  });

  it('keeps the filename the client gave, cleaned for headers, and records what the bytes are', async () => {
    const id = await newTicket();
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), binaryBytes(100)]);
    const created = await uploadRaw(http, `/api/tickets/${id}/attachments`, png, '../../Bildschirm\u202efoto 1.txt', 'text/plain').expect(
      201,
    );
    expect(created.body).toMatchObject({ filename: '.._.._Bildschirmfoto 1.txt', contentType: 'image/png' });
    const text = await uploadMultipart(http, `/api/tickets/${id}/attachments`, Buffer.from('Fehler: ü\n'), 'log.png', 'image/png').expect(
      201,
    );
    expect(text.body).toMatchObject({ filename: 'log.png', contentType: 'text/plain' });
  });

  it("answers 404 for an unknown ticket before reading the body, in each version's shape", async () => {
    const v1 = await uploadRaw(http, '/api/tickets/999999999/attachments', binaryBytes(10)).expect(404);
    expect(v1.body).toMatchObject({
      status: 404,
      message: 'Ticket not found with id: 999999999',
      path: '/api/tickets/999999999/attachments',
    });
    const v2 = await uploadMultipart(http, '/api/v2/tickets/999999999/attachments', binaryBytes(10)).expect(404);
    expect(v2.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(v2.body).toMatchObject({ status: 404, detail: 'Ticket not found with id: 999999999' });
  });

  it.each([
    ['a second file part', 'file'],
    ['a file part under another name', 'other'],
  ])('answers 400 for a multipart body with %s, and stores nothing', async (_label, second) => {
    const id = await newTicket();
    const before = await attachmentRowCounts(app);
    const response = await http
      .post(`/api/tickets/${id}/attachments`)
      .attach('file', binaryBytes(100), 'a.bin')
      .attach(second, binaryBytes(100), 'b.bin')
      .expect(400);
    expect(response.body.message).toBe('The multipart/form-data body may have one file part only, named "file"');
    expect(await attachmentRowCounts(app)).toEqual(before);
  });

  it('answers 400 for a multipart body without a file part', async () => {
    const id = await newTicket();
    const response = await http.post(`/api/tickets/${id}/attachments`).field('note', 'no file').expect(400);
    expect(response.body.message).toBe('The multipart/form-data body has no file part named "file"');
  });

  it('lists (paged like the comments), reads metadata and deletes, in both versions', async () => {
    const id = await newTicket();
    const ids: number[] = [];
    for (const name of ['a.bin', 'b.bin', 'c.bin'])
      ids.push((await uploadRaw(http, `/api/v2/tickets/${id}/attachments`, binaryBytes(5), name).expect(201)).body.id);
    const all = await http.get(`/api/tickets/${id}/attachments`).expect(200);
    expect(all.body.map((a: { id: number }) => a.id)).toEqual(ids);
    const page = await http.get(`/api/v2/tickets/${id}/attachments?limit=2`).expect(200);
    expect(page.body.items.map((a: { filename: string }) => a.filename)).toEqual(['a.bin', 'b.bin']);
    const next = await http.get(`/api/v2/tickets/${id}/attachments?limit=2&cursor=${page.body.nextCursor}`).expect(200);
    expect(next.body).toEqual({ items: [expect.objectContaining({ id: ids[2] })], nextCursor: null });
    const one = await http.get(`/api/v2/tickets/${id}/attachments/${ids[1]}`).expect(200);
    expect(one.body).toMatchObject({ id: ids[1], ticketId: id, filename: 'b.bin', size: 5 });

    await http.delete(`/api/tickets/${id}/attachments/${ids[1]}`).expect(204);
    await http.get(`/api/tickets/${id}/attachments/${ids[1]}`).expect(404);
    const missing = await http.get(`/api/v2/tickets/${id}/attachments/${ids[1]}/content`).expect(404);
    expect(missing.body.detail).toBe(`Attachment not found with id: ${ids[1]}`);
    await http.delete(`/api/v2/tickets/${id}/attachments/${ids[1]}`).expect(404);
    expect((await http.get(`/api/tickets/${id}/attachments`).expect(200)).body).toHaveLength(2);
    await http.get('/api/tickets/999999999/attachments').expect(404);
  });

  it('leaves no rows when the client disconnects mid-upload (the transaction rolls back)', async () => {
    const id = await newTicket();
    const before = await attachmentRowCounts(app);
    await abortedUpload(port, `/api/tickets/${id}/attachments`, 10 * MiB, 3 * MiB, () =>
      eventually(
        'the upload under way',
        () => uploadInProgress(app, id),
        (busy) => busy,
      ),
    );
    await eventually(
      'the upload rolled back',
      () => uploadInProgress(app, id),
      (busy) => !busy,
    );
    expect(await attachmentRowCounts(app)).toEqual(before);
    expect((await http.get(`/api/tickets/${id}/attachments`).expect(200)).body).toEqual([]);
  });

  it("takes the attachment's time when it commits, not when its upload started", async () => {
    const id = await newTicket();
    let started = 0;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api/tickets/${id}/attachments`,
        headers: { 'content-type': 'application/octet-stream', 'content-length': 200 },
      });
      req.on('response', resolve);
      req.on('error', reject);
      const finish = async () => {
        await eventually(
          'the upload under way',
          () => uploadInProgress(app, id),
          (busy) => busy,
        );
        started = Date.now();
        // The clock moves on before the upload ends (a wait for the clock, not for the server).
        while (Date.now() <= started + 5) await new Promise((tick) => setTimeout(tick, 5));
        req.end(binaryBytes(100));
      };
      req.write(binaryBytes(100), () => {
        finish().catch(reject);
      });
    });
    const body = JSON.parse(
      await new Promise<string>((resolve) => {
        let text = '';
        response.on('data', (piece: Buffer) => (text += piece.toString()));
        response.on('end', () => resolve(text));
      }),
    );
    expect(response.statusCode).toBe(201);
    expect(new Date(body.createdAt).getTime()).toBeGreaterThan(started);
    const stored = await http.get(`/api/tickets/${id}/attachments/${body.id}`).expect(200);
    expect(stored.body.createdAt).toBe(body.createdAt);
    const history = await http.get(`/api/tickets/${id}/history`).expect(200);
    expect(JSON.stringify(history.body)).toContain(body.createdAt);
  });

  it('records history entries for attachments added and deleted', async () => {
    const id = await newTicket();
    const created = await uploadRaw(http, `/api/tickets/${id}/attachments`, binaryBytes(3)).expect(201);
    await http.delete(`/api/tickets/${id}/attachments/${created.body.id}`).expect(204);
    const history = await http.get(`/api/tickets/${id}/history`).expect(200);
    expect(history.body.map((entry: { action: string; changes: unknown }) => [entry.action, entry.changes])).toEqual(
      expect.arrayContaining([
        ['ATTACHED', { attachment: { from: null, to: created.body.id } }],
        ['DETACHED', { attachment: { from: created.body.id, to: null } }],
      ]),
    );
  });
});

describe('Attachments: uploads past ATTACHMENTS_MAX_CONCURRENT_UPLOADS wait their turn', () => {
  let app: INestApplication;
  let http: ReturnType<typeof request>;
  let port: number;

  beforeAll(async () => {
    app = await createTestApp({ env: { ATTACHMENTS_MAX_CONCURRENT_UPLOADS: '1' } });
    port = await listen(app);
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await app?.close();
  });

  it('starts a second upload only once the first has ended', async () => {
    const [first, second] = [(await createTicket(http)).body.id, (await createTicket(http)).body.id];
    let abortedAt = 0;
    let waiting: Promise<request.Response> | undefined;
    await abortedUpload(port, `/api/tickets/${first}/attachments`, 10 * MiB, MiB, async () => {
      await eventually(
        'the first upload under way',
        () => uploadInProgress(app, first),
        (busy) => busy,
      );
      waiting = uploadRaw(http, `/api/tickets/${second}/attachments`, binaryBytes(100)).then((response) => response);
      abortedAt = Date.now();
    });
    const created = await waiting!;
    expect(created.status).toBe(201);
    expect(new Date(created.body.createdAt).getTime()).toBeGreaterThanOrEqual(abortedAt);
  });

  it('fails an upload whose client left while it waited, and frees its turn', async () => {
    const [first, second] = [(await createTicket(http)).body.id, (await createTicket(http)).body.id];
    await abortedUpload(port, `/api/tickets/${first}/attachments`, 10 * MiB, MiB, async () => {
      await eventually(
        'the first upload under way',
        () => uploadInProgress(app, first),
        (busy) => busy,
      );
      await abortedUpload(port, `/api/tickets/${second}/attachments`, 100, 50, async () => undefined);
    });
    await uploadRaw(http, `/api/tickets/${second}/attachments`, binaryBytes(100)).expect(201);
    expect((await http.get(`/api/tickets/${second}/attachments`).expect(200)).body).toHaveLength(1);
  });

  it.each([
    ['multipart', abortedMultipart],
    ['raw', (port: number, path: string, inProgress: () => Promise<unknown>) => abortedUpload(port, path, 100, 50, inProgress)],
  ])('leaves no transaction open nor its turn taken when a %s client leaves before its upload starts', async (_kind, abort) => {
    const [first, second] = [(await createTicket(http)).body.id, (await createTicket(http)).body.id];
    await abortedUpload(port, `/api/tickets/${first}/attachments`, 10 * MiB, MiB, async () => {
      await eventually(
        'the first upload under way',
        () => uploadInProgress(app, first),
        (busy) => busy,
      );
      await abort(port, `/api/tickets/${second}/attachments`, async () => undefined);
    });
    await eventually(
      'no transaction left open',
      () => openTransactions(app),
      (n) => n === 0,
      70,
      OPEN_TRANSACTIONS_POLL_MS,
    );
    const created = await uploadMultipart(http, `/api/tickets/${second}/attachments`, binaryBytes(100)).expect(201);
    const responses = await Promise.all(Array.from({ length: 30 }, () => http.get(`/api/tickets/${second}/attachments`)));
    expect(responses.map((response) => response.status)).toEqual(Array(30).fill(200));
    expect(responses[0].body.map((a: { id: number }) => a.id)).toEqual([created.body.id]);
  });
});

describe('Attachments: a trickling upload is cut off (ATTACHMENTS_UPLOAD_IDLE_TIMEOUT_MS); ATTACHMENTS_MAX_PER_TICKET', () => {
  let app: INestApplication;
  let http: ReturnType<typeof request>;
  let port: number;

  beforeAll(async () => {
    app = await createTestApp({ env: { ATTACHMENTS_UPLOAD_IDLE_TIMEOUT_MS: '500', ATTACHMENTS_MAX_PER_TICKET: '2' } });
    port = await listen(app);
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await app?.close();
  });

  it('answers 408 to a client sending a byte at a time, and frees its connection', async () => {
    const id = (await createTicket(http)).body.id;
    const before = await attachmentRowCounts(app);
    expect(await trickledUpload(port, `/api/tickets/${id}/attachments`, 200, 50)).toBe(408);
    await eventually(
      'no transaction left open',
      () => openTransactions(app),
      (n) => n === 0,
      70,
      OPEN_TRANSACTIONS_POLL_MS,
    );
    expect(await attachmentRowCounts(app)).toEqual(before);
    await uploadRaw(http, `/api/tickets/${id}/attachments`, binaryBytes(100)).expect(201);
  });

  it('answers 409 to an upload past ATTACHMENTS_MAX_PER_TICKET, in each version, and stores nothing', async () => {
    const id = (await createTicket(http)).body.id;
    for (let i = 0; i < 2; i++) await uploadRaw(http, `/api/tickets/${id}/attachments`, binaryBytes(10)).expect(201);
    const before = await attachmentRowCounts(app);
    const v1 = await uploadRaw(http, `/api/tickets/${id}/attachments`, binaryBytes(10)).expect(409);
    expect(v1.body).toMatchObject({ status: 409, message: `Ticket ${id} already has 2 attachments, the most it may have` });
    const v2 = await uploadMultipart(http, `/api/v2/tickets/${id}/attachments`, binaryBytes(10)).expect(409);
    expect(v2.body).toMatchObject({ status: 409, detail: `Ticket ${id} already has 2 attachments, the most it may have` });
    expect(await attachmentRowCounts(app)).toEqual(before);
  });
});
