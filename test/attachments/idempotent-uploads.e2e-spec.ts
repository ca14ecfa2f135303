import { randomUUID } from 'node:crypto';
import { expectProblem } from '../support/problem-json.js';
import { expectSpringError } from '../support/spring-error.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { attachmentRowCounts, binaryBytes, MiB, uploadMultipart, uploadRaw } from '../support/attachment-uploads.js';

describe('Attachments: an Idempotency-Key names one file', () => {
  const testApp = useTestApp();

  it.each([
    ['v1', '/api/tickets'],
    ['v2', '/api/v2/tickets'],
  ])('%s: the same file replays the first answer, another file or name is a 422 in the version’s shape', async (version, prefix) => {
    const { app, http } = testApp;
    const ticketId = (await createTicket(http)).body.id;
    const path = `${prefix}/${ticketId}/attachments`;
    const key = `upload-${randomUUID()}`;
    const file = binaryBytes(MiB + 10);
    const first = await uploadRaw(http, path, file, 'trace.bin').set('Idempotency-Key', key).expect(201);
    const stored = await attachmentRowCounts(app);

    // The same file, sent as multipart this time.
    const replay = await uploadMultipart(http, path, file, 'trace.bin').set('Idempotency-Key', key).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers.location).toBe(first.headers.location);
    expect(replay.body).toEqual(first.body);

    const otherBytes = Buffer.from(file);
    otherBytes[otherBytes.length - 1] ^= 0xff;
    for (const other of [
      uploadRaw(http, path, otherBytes, 'trace.bin'),
      uploadMultipart(http, path, otherBytes, 'trace.bin'),
      uploadRaw(http, path, file, 'other-name.bin'),
    ]) {
      const refused = asHttpResponse(await other.set('Idempotency-Key', key));
      const message = version === 'v1' ? expectSpringError(refused, 422, path).message : expectProblem(refused, 422, path).detail;
      expect(message).toBe(`Idempotency-Key "${key}" was used with a different request (method, path or body)`);
      expect(refused.headers).not.toHaveProperty('idempotent-replayed');
    }
    expect(await attachmentRowCounts(app)).toEqual(stored);
    // The key still replays the first upload.
    await uploadRaw(http, path, file, 'trace.bin').set('Idempotency-Key', key).expect(201).expect('Idempotent-Replayed', 'true');
  });
});
