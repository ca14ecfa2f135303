import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { expectProblem } from '../support/problem-json.js';
import { expectSpringError } from '../support/spring-error.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { createTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { attachmentRowCounts, binaryBytes, MiB, sha256, uploadMultipart } from '../support/attachment-uploads.js';

const BOUNDARY = 'truncated-form-boundary';

/**
 * A multipart/form-data body whose file part is never closed: the body ends in the file's bytes, without the closing
 * boundary (`--<boundary>--`), as a client cut off mid-body or a broken encoder sends it.
 */
function unterminatedMultipart(bytes: Buffer): Buffer {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), bytes]);
}

/** The same with the file part closed, but the form not: the body ends at the boundary that would open another part. */
function unclosedForm(bytes: Buffer): Buffer {
  return Buffer.concat([unterminatedMultipart(bytes), Buffer.from(`\r\n--${BOUNDARY}`)]);
}

function postMultipart(http: ReturnType<typeof request>, path: string, body: Buffer) {
  return http.post(path).set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`).send(body);
}

const VERSIONS = [
  ['v1', '/api/tickets'],
  ['v2', '/api/v2/tickets'],
] as const;

const SIZES = [
  ['100 bytes', 100],
  ['3 MiB', 3 * MiB + 17],
] as const;

const BODIES = [
  ['without its closing boundary', unterminatedMultipart],
  ['ending at a part boundary', unclosedForm],
] as const;

function expectMalformed(version: string, response: request.Response, path: string): void {
  const http = asHttpResponse(response);
  const message = version === 'v1' ? expectSpringError(http, 400, path).message : expectProblem(http, 400, path).detail;
  expect(message).toMatch(/^Malformed multipart\/form-data: /);
}

describe.each([
  ['database', false],
  ['filesystem', true],
])('Attachments: a multipart body cut short is a 400, stores nothing (%s storage)', (_storage, filesystem) => {
  let app: INestApplication;
  let http: ReturnType<typeof request>;
  let directory: string | undefined;

  beforeAll(async () => {
    directory = filesystem ? await mkdtemp(join(tmpdir(), 'attachments-')) : undefined;
    const env: Record<string, string> = directory ? { ATTACHMENTS_STORAGE: 'filesystem', ATTACHMENTS_DIRECTORY: directory } : {};
    app = await createTestApp({ env });
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await app?.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  const files = async () => (directory ? (await readdir(directory)).sort() : []);

  describe.each(VERSIONS)('%s', (version, prefix) => {
    it.each(SIZES.flatMap(([label, size]) => BODIES.map(([kind, body]) => [label, kind, size, body] as const)))(
      'answers 400 to a file of %s %s',
      async (_label, _kind, size, body) => {
        const ticketId = (await createTicket(http)).body.id;
        const path = `${prefix}/${ticketId}/attachments`;
        const [rows, names] = [await attachmentRowCounts(app), await files()];
        expectMalformed(version, await postMultipart(http, path, body(binaryBytes(size))), path);
        expect(await attachmentRowCounts(app)).toEqual(rows);
        expect(await files()).toEqual(names);
        // The ticket takes a whole file afterwards.
        await uploadMultipart(http, path, binaryBytes(size)).expect(201);
      },
    );

    it('frees the Idempotency-Key of a cut-short upload for a retry, and refuses a cut-short retry of a stored one', async () => {
      const ticketId = (await createTicket(http)).body.id;
      const path = `${prefix}/${ticketId}/attachments`;
      const key = `upload-${randomUUID()}`;
      const file = binaryBytes(3 * MiB);
      const rows = await attachmentRowCounts(app);
      expectMalformed(version, await postMultipart(http, path, unterminatedMultipart(file)).set('Idempotency-Key', key), path);
      expect(await attachmentRowCounts(app)).toEqual(rows);

      const stored = await uploadMultipart(http, path, file).set('Idempotency-Key', key).expect(201);
      expect(stored.headers).not.toHaveProperty('idempotent-replayed');
      expect(stored.body).toMatchObject({ size: file.length, sha256: sha256(file) });

      // A retry of the stored upload whose body is cut short: the same 400, and the key still replays the upload.
      expectMalformed(version, await postMultipart(http, path, unterminatedMultipart(file)).set('Idempotency-Key', key), path);
      const replay = await uploadMultipart(http, path, file).set('Idempotency-Key', key).expect(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(stored.body);
    });
  });
});
