import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { binaryBytes, download, MiB, sha256, uploadMultipart, uploadRaw } from '../support/attachment-uploads.js';

describe('Attachments: chunks travel to the database as their bytes (database storage)', () => {
  let proxy: TcpProxy;
  let app: INestApplication;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    // Every byte the service sends the database passes the proxy, which counts them.
    proxy = await TcpProxy.start(Number(process.env.DB_PORT ?? 3306));
    app = await createTestApp({ env: { DB_HOST: '127.0.0.1', DB_PORT: String(proxy.port) } });
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await app?.close();
    await proxy?.stop();
  });

  it.each([
    ['raw', uploadRaw],
    ['multipart', uploadMultipart],
  ])('a %s upload of 4 MiB sends the database about 4 MiB, not twice that as hex text', async (_kind, upload) => {
    const id = (await createTicket(http)).body.id;
    const bytes = binaryBytes(4 * MiB);
    const before = proxy.sentByClients;
    const created = await upload(http, `/api/tickets/${id}/attachments`, bytes).expect(201);
    const sent = proxy.sentByClients - before;
    // The file reached the database through the proxy, once, as its bytes (hex text would be 8 MiB and more).
    expect(sent).toBeGreaterThan(4 * MiB);
    expect(sent).toBeLessThan(4 * MiB + MiB / 4);
    const content = await download(http, `/api/tickets/${id}/attachments/${created.body.id}/content`);
    expect(sha256(content.bytes)).toBe(sha256(bytes));
  });
});
