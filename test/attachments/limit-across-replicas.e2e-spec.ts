import { request as httpRequest } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { listen } from '../support/http-client.js';
import { createTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { binaryBytes, eventually } from '../support/attachment-uploads.js';

const LIMIT = 3;
const BODY_BYTES = 200 * 1024;

/** A raw upload whose body stops after its first half until `finish()`; `status` is its answer's. */
function heldUpload(port: number, path: string): { finish(): void; status: Promise<number> } {
  const body = binaryBytes(BODY_BYTES);
  const req = httpRequest({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path,
    headers: { 'content-type': 'application/octet-stream', 'content-length': BODY_BYTES },
  });
  const status = new Promise<number>((resolve, reject) => {
    req.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.on('error', reject);
  });
  req.write(body.subarray(0, BODY_BYTES / 2));
  return { finish: () => req.end(body.subarray(BODY_BYTES / 2)), status };
}

/** The ticket's attachment rows, those of uploads still in progress (uncommitted) included. */
async function rowsWithUncommitted(app: INestApplication, ticketId: number): Promise<number> {
  const runner = app.get<DataSource>(getDataSourceToken()).createQueryRunner();
  try {
    // For the next statement's transaction only.
    await runner.query('SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED');
    const [{ n }] = await runner.query('SELECT COUNT(*) AS n FROM ticket_attachments WHERE ticket_id = ?', [ticketId]);
    return Number(n);
  } finally {
    await runner.release();
  }
}

describe('Attachments: ATTACHMENTS_MAX_PER_TICKET holds across replicas', () => {
  const replicas: Array<{ app: INestApplication; port: number }> = [];

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const app = await createTestApp({ env: { ATTACHMENTS_MAX_PER_TICKET: String(LIMIT), ATTACHMENTS_UPLOAD_IDLE_TIMEOUT_MS: '60000' } });
      replicas.push({ app, port: await listen(app) });
    }
  });

  afterAll(async () => {
    for (const { app } of replicas) await app.close();
  });

  it('stores exactly the limit when uploads through two replicas race to it, and answers the rest 409', async () => {
    const [a, b] = replicas;
    const ticketId = (await createTicket(request(a.app.getHttpServer()))).body.id;
    const path = `/api/tickets/${ticketId}/attachments`;
    // Eight uploads, four through each replica, all past the check before the body (no attachment committed yet)
    // and each with its row inserted, in transactions that are all open at once.
    const uploads = Array.from({ length: 8 }, (_, i) => heldUpload((i % 2 === 0 ? a : b).port, path));
    await eventually(
      'all eight uploads in progress',
      () => rowsWithUncommitted(a.app, ticketId),
      (n) => n === 8,
    );
    for (const upload of uploads) upload.finish();
    const statuses = await Promise.all(uploads.map((upload) => upload.status));
    expect(statuses.filter((status) => status === 201)).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 409)).toHaveLength(8 - LIMIT);
    const listed = await request(b.app.getHttpServer()).get(path).expect(200);
    expect(listed.body).toHaveLength(LIMIT);
  });
});
