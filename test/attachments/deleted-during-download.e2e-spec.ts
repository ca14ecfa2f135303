import { get } from 'node:http';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { listen } from '../support/http-client.js';
import { createTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { binaryBytes, download, MiB, sha256, uploadRaw } from '../support/attachment-uploads.js';

/**
 * Downloads `path`, pausing once the first bytes arrive (the server's sending waits meanwhile, through back-pressure)
 * until `meanwhile` has run; answers whether the body arrived whole (as many bytes as Content-Length said) and how
 * many bytes came.
 */
function downloadWhile(
  port: number,
  path: string,
  meanwhile: () => Promise<unknown>,
): Promise<{ status: number; contentLength: number; complete: boolean; size: number }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path }, (response) => {
      let size = 0;
      let paused = false;
      response.on('data', (piece: Buffer) => {
        size += piece.length;
        if (paused) return;
        paused = true;
        response.pause();
        meanwhile().then(() => response.resume(), reject);
      });
      // A cut connection fails the response; what arrived until then is the answer.
      response.on('error', () => undefined);
      response.on('close', () =>
        resolve({
          status: response.statusCode ?? 0,
          contentLength: Number(response.headers['content-length']),
          complete: response.complete,
          size,
        }),
      );
    }).on('error', reject);
  });
}

describe.each([
  ['database', false],
  ['filesystem', true],
])('Attachments: one deleted during its download ends the download short (%s storage)', (_storage, filesystem) => {
  let app: INestApplication;
  let http: ReturnType<typeof request>;
  let port: number;
  let directory: string | undefined;

  beforeAll(async () => {
    directory = filesystem ? await mkdtemp(join(tmpdir(), 'attachments-')) : undefined;
    app = await createTestApp({ env: directory ? { ATTACHMENTS_STORAGE: 'filesystem', ATTACHMENTS_DIRECTORY: directory } : {} });
    port = await listen(app);
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await app?.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('cuts the connection of a 25 MiB download whose attachment is deleted meanwhile: the client sees a short body', async () => {
    const ticketId = (await createTicket(http)).body.id;
    // More than the socket buffers between server and client hold, so that most of it is read after the delete.
    const bytes = binaryBytes(25 * MiB);
    const created = await uploadRaw(http, `/api/tickets/${ticketId}/attachments`, bytes).expect(201);
    const path = `/api/tickets/${ticketId}/attachments/${created.body.id}`;

    const received = await downloadWhile(port, `${path}/content`, async () => {
      await http.delete(path).expect(204);
      if (directory) expect(await readdir(directory)).not.toContain(String(created.body.id));
    });
    expect(received).toMatchObject({ status: 200, contentLength: 26_214_400, complete: false });
    expect(received.size).toBeLessThan(26_214_400);
    await http.get(`${path}/content`).expect(404);
  });

  it('sends the whole content of an attachment that stays', async () => {
    const ticketId = (await createTicket(http)).body.id;
    const bytes = binaryBytes(5 * MiB + 1);
    const created = await uploadRaw(http, `/api/tickets/${ticketId}/attachments`, bytes).expect(201);
    const path = `/api/tickets/${ticketId}/attachments/${created.body.id}/content`;
    const received = await downloadWhile(port, path, () => new Promise((resolve) => setTimeout(resolve, 200)));
    expect(received).toEqual({ status: 200, contentLength: bytes.length, complete: true, size: bytes.length });
    expect(sha256((await download(http, path)).bytes)).toBe(sha256(bytes));
  });
});
