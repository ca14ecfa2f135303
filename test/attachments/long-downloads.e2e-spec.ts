import { get } from 'node:http';
import { createHash } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { listen } from '../support/http-client.js';
import { createTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { binaryBytes, MiB, sha256, uploadRaw } from '../support/attachment-uploads.js';

const QUERY_TIMEOUT_MS = 1_500;

/**
 * Downloads `path`, pausing once the first bytes arrive until `pauseMs` has passed (the server's sending waits
 * meanwhile, through back-pressure); answers whether the body arrived whole, its length and hash.
 */
function pausedDownload(port: number, path: string, pauseMs: number): Promise<{ complete: boolean; size: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path }, (response) => {
      const hash = createHash('sha256');
      let size = 0;
      let paused = false;
      response.on('data', (piece: Buffer) => {
        hash.update(piece);
        size += piece.length;
        if (!paused) {
          paused = true;
          response.pause();
          setTimeout(() => response.resume(), pauseMs);
        }
      });
      response.on('close', () => resolve({ complete: response.complete, size, sha256: hash.digest('hex') }));
    }).on('error', reject);
  });
}

describe('Attachments: a download lasts as long as its client takes (database storage)', () => {
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    app = await createTestApp({ env: { DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS) } });
    port = await listen(app);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('sends every chunk of a download whose client is slower than DB_QUERY_TIMEOUT_MS', async () => {
    const http = request(app.getHttpServer());
    const id = (await createTicket(http)).body.id;
    // More than the socket buffers between server and client hold, so that chunks are read after the pause.
    const bytes = binaryBytes(24 * MiB);
    const created = await uploadRaw(http, `/api/tickets/${id}/attachments`, bytes).expect(201);
    const received = await pausedDownload(port, `/api/tickets/${id}/attachments/${created.body.id}/content`, 2 * QUERY_TIMEOUT_MS);
    expect(received).toEqual({ complete: true, size: bytes.length, sha256: sha256(bytes) });
  });
});
