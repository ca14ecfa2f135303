import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { EventConsumer } from '../support/event-consumer.js';
import { createTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { attachmentRowCounts, binaryBytes, download, MiB, sha256, uploadMultipart, uploadRaw } from '../support/attachment-uploads.js';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), binaryBytes(64)]);
const SAFE_HEADERS = { 'x-content-type-options': 'nosniff', 'content-security-policy': "sandbox; default-src 'none'" };

describe('Attachments: downloads, ranges, safe headers, comments, ticket deletes and events', () => {
  let app: INestApplication;
  let http: ReturnType<typeof request>;
  let everything: EventConsumer;

  beforeAll(async () => {
    everything = await EventConsumer.bound('ticket.#');
    app = await createTestApp();
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await app?.close();
    await everything?.stop();
  });

  async function newTicket(): Promise<number> {
    return (await createTicket(http)).body.id;
  }

  async function attach(ticketId: number, bytes: Buffer, filename = 'file.bin', type = 'application/octet-stream') {
    return (await uploadRaw(http, `/api/tickets/${ticketId}/attachments`, bytes, filename, type).expect(201)).body;
  }

  it('downloads a large attachment without piling up listeners on the response', async () => {
    const ticketId = await newTicket();
    const bytes = binaryBytes(15 * MiB + 1);
    const id = (await attach(ticketId, bytes)).id;
    const path = `/api/tickets/${ticketId}/attachments/${id}/content`;
    const server = app.getHttpServer() as Server;
    let most = 0;
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      if (req.url === path) res.on('drain', () => (most = Math.max(most, res.listenerCount('error'))));
    };
    server.on('request', onRequest);
    try {
      const content = await download(http, path);
      expect(sha256(content.bytes)).toBe(sha256(bytes));
    } finally {
      server.off('request', onRequest);
    }
    // 16 pieces of a MiB, each filling the response's buffer: a listener left per wait would pass the limit of 10.
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThan(10);
  });

  describe('ranges and conditional requests', () => {
    let bytes: Buffer;
    let path: string;

    beforeAll(async () => {
      const ticketId = await newTicket();
      bytes = binaryBytes(3 * MiB + 123);
      path = `/api/tickets/${ticketId}/attachments/${(await attach(ticketId, bytes)).id}/content`;
    });

    it('answers one range with 206 and Content-Range, also across chunk boundaries', async () => {
      for (const [start, end] of [
        [0, 0],
        [MiB - 10, MiB + 9],
        [2 * MiB, 3 * MiB + 122],
      ]) {
        const part = await download(http, path, { Range: `bytes=${start}-${end}` });
        expect(part.status).toBe(206);
        expect(part.headers['content-range']).toBe(`bytes ${start}-${end}/${bytes.length}`);
        expect(part.bytes.equals(bytes.subarray(start, end + 1))).toBe(true);
      }
      const suffix = await download(http, path, { Range: 'bytes=-100' });
      expect(suffix.status).toBe(206);
      expect(suffix.bytes.equals(bytes.subarray(bytes.length - 100))).toBe(true);
    });

    it('answers several ranges with the whole content (200), and a range outside it with 416', async () => {
      const whole = await download(http, path, { Range: 'bytes=0-9,2000000-2000009' });
      expect(whole.status).toBe(200);
      expect(sha256(whole.bytes)).toBe(sha256(bytes));
      const outside = await http
        .get(path)
        .set('Range', `bytes=${bytes.length + 10}-`)
        .expect(416);
      expect(outside.headers['content-range']).toBe(`bytes */${bytes.length}`);
      expect(outside.body).toMatchObject({ status: 416 });
    });

    it('sends the SHA-256 as ETag and answers a matching If-None-Match with 304; If-Range with another tag gets it all', async () => {
      const first = await download(http, path);
      expect(first.headers.etag).toBe(`"${sha256(bytes)}"`);
      expect(first.headers['accept-ranges']).toBe('bytes');
      const again = await http.get(path).set('If-None-Match', first.headers.etag).expect(304);
      expect(again.text ?? '').toBe('');
      await http.get(path).set('If-None-Match', '"other"').expect(200);
      const stale = await download(http, path, { Range: 'bytes=0-9', 'If-Range': '"other"' });
      expect(stale.status).toBe(200);
      const fresh = await download(http, path, { Range: 'bytes=0-9', 'If-Range': first.headers.etag });
      expect(fresh.status).toBe(206);
      const head = await http.head(path).expect(200);
      expect(head.headers).toMatchObject({ etag: first.headers.etag, 'content-length': String(bytes.length), 'accept-ranges': 'bytes' });
    });
  });

  describe('safe to open', () => {
    it('serves HTML as an attachment, with nosniff and a sandboxing CSP, even when inline is asked for', async () => {
      const ticketId = await newTicket();
      const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
      const attachment = await attach(ticketId, html, 'Fehlerbericht ü.html', 'text/html');
      expect(attachment.contentType).toBe('text/html');
      const response = await download(http, `/api/v2/tickets/${ticketId}/attachments/${attachment.id}/content?disposition=inline`);
      expect(response.status).toBe(200);
      expect(response.headers).toMatchObject(SAFE_HEADERS);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['content-disposition']).toBe(
        `attachment; filename="Fehlerbericht _.html"; filename*=UTF-8''Fehlerbericht%20%C3%BC.html`,
      );
      expect(response.bytes.equals(html)).toBe(true);
    });

    it('allows inline for a PNG, refuses it for SVG, and answers 400 for another disposition', async () => {
      const ticketId = await newTicket();
      const png = await attach(ticketId, PNG, 'screen.png', 'image/png');
      const shown = await download(http, `/api/tickets/${ticketId}/attachments/${png.id}/content?disposition=inline`);
      expect(shown.headers['content-disposition']).toMatch(/^inline; filename="screen.png"/);
      expect(shown.headers).toMatchObject({ ...SAFE_HEADERS, 'content-type': 'image/png' });
      const svg = await attach(
        ticketId,
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>1</script></svg>'),
        'x.svg',
        'image/svg+xml',
      );
      const refused = await download(http, `/api/tickets/${ticketId}/attachments/${svg.id}/content?disposition=inline`);
      expect(refused.headers['content-disposition']).toMatch(/^attachment; /);
      expect(refused.headers).toMatchObject(SAFE_HEADERS);
      await http.get(`/api/tickets/${ticketId}/attachments/${png.id}/content?disposition=open`).expect(400);
    });

    it('serves a declared WebP, BMP or AVIF as an attachment even when inline is asked for: its bytes cannot be confirmed', async () => {
      const ticketId = await newTicket();
      // A real WebP's first bytes (RIFF, size, WEBP, a VP8L chunk) and bytes of anything, declared image/webp alike.
      const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.from([26, 0, 0, 0]), Buffer.from('WEBPVP8L'), binaryBytes(18)]);
      for (const [bytes, type] of [
        [webp, 'image/webp'],
        [binaryBytes(64), 'image/webp'],
        [binaryBytes(64), 'image/bmp'],
        [binaryBytes(64), 'image/avif'],
      ] as const) {
        const attachment = await attach(ticketId, bytes, 'picture', type);
        expect(attachment.contentType).toBe(type);
        for (const version of ['/api', '/api/v2']) {
          const response = await download(http, `${version}/tickets/${ticketId}/attachments/${attachment.id}/content?disposition=inline`);
          expect([type, response.status, response.headers['content-disposition']]).toEqual([
            type,
            200,
            expect.stringMatching(/^attachment; filename="picture"/),
          ]);
          expect(response.headers).toMatchObject({ ...SAFE_HEADERS, 'content-type': type });
        }
      }
    });
  });

  describe('comments that name attachments', () => {
    it('lists the attachments in the comment; a comment without them answers exactly as before', async () => {
      const ticketId = await newTicket();
      const [a, b] = [await attach(ticketId, binaryBytes(4)), await attach(ticketId, binaryBytes(4))];
      const named = await http
        .post(`/api/tickets/${ticketId}/comments`)
        .send({ body: 'see logs', attachmentIds: [b.id, a.id] })
        .expect(201);
      expect(named.body.attachmentIds).toEqual([a.id, b.id]);
      const plain = await http.post(`/api/tickets/${ticketId}/comments`).send({ body: 'no files' }).expect(201);
      expect(Object.keys(plain.body)).toEqual(['id', 'ticketId', 'body', 'author', 'visibility', 'createdAt']);
      const list = (await http.get(`/api/tickets/${ticketId}/comments`).expect(200)).body;
      expect(list.map((c: { attachmentIds?: number[] }) => c.attachmentIds)).toEqual([[a.id, b.id], undefined]);
      const one = (await http.get(`/api/v2/tickets/${ticketId}/comments/${named.body.id}`).expect(200)).body;
      expect(one.attachmentIds).toEqual([a.id, b.id]);
    });

    it("answers 400 for an unknown id, another ticket's attachment or a malformed list, and stores no comment", async () => {
      const [ticketId, otherId] = [await newTicket(), await newTicket()];
      const other = await attach(otherId, binaryBytes(4));
      const foreign = await http
        .post(`/api/tickets/${ticketId}/comments`)
        .send({ body: 'x', attachmentIds: [other.id] })
        .expect(400);
      expect(foreign.body.message).toBe(`Ticket ${ticketId} has no attachment with id ${other.id}`);
      await http
        .post(`/api/v2/tickets/${ticketId}/comments`)
        .send({ body: 'x', attachmentIds: [999999999] })
        .expect(400);
      await http
        .post(`/api/tickets/${ticketId}/comments`)
        .send({ body: 'x', attachmentIds: ['1'] })
        .expect(400);
      await http
        .post(`/api/tickets/${ticketId}/comments`)
        .send({ body: 'x', attachmentIds: [1, 1] })
        .expect(400);
      expect((await http.get(`/api/tickets/${ticketId}/comments`).expect(200)).body).toEqual([]);
    });

    it('refuses to delete an attachment a comment names (409)', async () => {
      const ticketId = await newTicket();
      const a = await attach(ticketId, binaryBytes(4));
      const named = await http
        .post(`/api/tickets/${ticketId}/comments`)
        .send({ body: 'see', attachmentIds: [a.id] })
        .expect(201);
      const refused = await http.delete(`/api/v2/tickets/${ticketId}/attachments/${a.id}`).expect(409);
      expect(refused.body.detail).toBe(`Attachment ${a.id} is named by comment ${named.body.id} and cannot be deleted`);
      await http.get(`/api/tickets/${ticketId}/attachments/${a.id}`).expect(200);
    });
  });

  it("deletes a ticket's attachments and their chunks with it, comments naming them included", async () => {
    const ticketId = await newTicket();
    const keep = await newTicket();
    await attach(keep, binaryBytes(10));
    const before = await attachmentRowCounts(app);
    const a = await attach(ticketId, binaryBytes(2 * MiB + 1));
    await uploadMultipart(http, `/api/tickets/${ticketId}/attachments`, binaryBytes(5)).expect(201);
    await http
      .post(`/api/tickets/${ticketId}/comments`)
      .send({ body: 'see', attachmentIds: [a.id] })
      .expect(201);
    expect(await attachmentRowCounts(app)).toEqual({ attachments: before.attachments + 2, chunks: before.chunks + 4 });
    await http.delete(`/api/tickets/${ticketId}`).expect(204);
    expect(await attachmentRowCounts(app)).toEqual(before);
    await http.get(`/api/tickets/${ticketId}/attachments/${a.id}`).expect(404);
  });

  it('answers a retry with the same Idempotency-Key with the first upload, storing the file once', async () => {
    const ticketId = await newTicket();
    const key = `upload-${Date.now()}-${Math.random()}`;
    const bytes = binaryBytes(1000);
    const first = await uploadRaw(http, `/api/v2/tickets/${ticketId}/attachments`, bytes).set('Idempotency-Key', key).expect(201);
    const replay = await uploadMultipart(http, `/api/v2/tickets/${ticketId}/attachments`, bytes).set('Idempotency-Key', key).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers.location).toBe(first.headers.location);
    expect(replay.headers.etag).toBe(first.headers.etag);
    expect(replay.body).toEqual(first.body);
    expect((await http.get(`/api/tickets/${ticketId}/attachments`).expect(200)).body).toHaveLength(1);
  });

  it('publishes ATTACHMENT_ADDED and ATTACHMENT_DELETED with the metadata, never the bytes, on routing keys of their own', async () => {
    const ticketId = await newTicket();
    const added = await attach(ticketId, Buffer.from('secret log line\n'), 'app.log', 'text/plain');
    await http.delete(`/api/tickets/${ticketId}/attachments/${added.id}`).expect(204);
    await everything.waitFor(() => everything.forTicket(ticketId).length === 3);
    const [, addedEvent, deletedEvent] = everything.forTicket(ticketId);
    for (const [delivery, type, key] of [
      [addedEvent, 'ATTACHMENT_ADDED', 'ticket.attachment.added'],
      [deletedEvent, 'ATTACHMENT_DELETED', 'ticket.attachment.deleted'],
    ] as const) {
      const event = JSON.parse(delivery.content.toString('utf8'));
      expect(delivery.fields.routingKey).toBe(key);
      expect(delivery.properties.type).toBe(type);
      expect(Object.keys(event)).toEqual(['eventId', 'eventType', 'occurredAt', 'ticketId', 'attachment']);
      expect(event).toMatchObject({ eventType: type, ticketId, attachment: added });
      expect(delivery.content.toString('utf8')).not.toContain('secret log line');
    }
  });
});
