import { mkdir, mkdtemp, readdir, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { OrphanSweeper } from '../../src/attachments/storage/orphan-sweeper.js';
import { listen } from '../support/http-client.js';
import { createTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import {
  abortedUpload,
  attachmentRowCounts,
  binaryBytes,
  download,
  eventually,
  MiB,
  sha256,
  uploadInProgress,
  uploadMultipart,
  uploadRaw,
} from '../support/attachment-uploads.js';

describe('Attachments in the filesystem storage', () => {
  let app: INestApplication;
  let http: ReturnType<typeof request>;
  let port: number;
  let directory: string;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'attachments-'));
    app = await createTestApp({ env: { ATTACHMENTS_STORAGE: 'filesystem', ATTACHMENTS_DIRECTORY: directory } });
    port = await listen(app);
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await app?.close();
    await rm(directory, { recursive: true, force: true });
  });

  const files = () => readdir(directory).then((names) => names.sort());

  async function newTicket(): Promise<number> {
    return (await createTicket(http)).body.id;
  }

  it.each([
    ['multipart', uploadMultipart, 1],
    ['raw', uploadRaw, 5 * MiB + 3],
  ])('round-trips a %s upload of %i bytes through a file named by the id, with no chunk rows', async (_kind, upload, size) => {
    const ticketId = await newTicket();
    const bytes = binaryBytes(size);
    const chunksBefore = (await attachmentRowCounts(app)).chunks;
    const created = await upload(http, `/api/v2/tickets/${ticketId}/attachments`, bytes).expect(201);
    expect(created.body).toMatchObject({ size, sha256: sha256(bytes) });
    expect(await files()).toContain(String(created.body.id));
    expect(sha256(await readFile(join(directory, String(created.body.id))))).toBe(sha256(bytes));
    expect((await attachmentRowCounts(app)).chunks).toBe(chunksBefore);
    const content = await download(http, `/api/v2/tickets/${ticketId}/attachments/${created.body.id}/content`);
    expect(sha256(content.bytes)).toBe(sha256(bytes));
    const part = await download(http, `/api/v2/tickets/${ticketId}/attachments/${created.body.id}/content`, { Range: 'bytes=0-0' });
    expect(part.status).toBe(206);
    expect(part.bytes.equals(bytes.subarray(0, 1))).toBe(true);
  });

  it('removes the file when the attachment is deleted, and every file of a ticket when it is', async () => {
    const ticketId = await newTicket();
    const [a, b, c] = [
      (await uploadRaw(http, `/api/tickets/${ticketId}/attachments`, binaryBytes(10)).expect(201)).body.id,
      (await uploadRaw(http, `/api/tickets/${ticketId}/attachments`, binaryBytes(10)).expect(201)).body.id,
      (await uploadRaw(http, `/api/tickets/${ticketId}/attachments`, binaryBytes(10)).expect(201)).body.id,
    ].map(String);
    expect(await files()).toEqual(expect.arrayContaining([a, b, c]));
    await http.delete(`/api/tickets/${ticketId}/attachments/${a}`).expect(204);
    expect(await files()).not.toContain(a);
    await http.delete(`/api/tickets/${ticketId}`).expect(204);
    expect(await files()).not.toContain(b);
    expect(await files()).not.toContain(c);
  });

  it('answers a committed delete with success even when the file cannot be removed (left for the sweeper)', async () => {
    const ticketId = await newTicket();
    const [a, b] = [
      (await uploadRaw(http, `/api/tickets/${ticketId}/attachments`, binaryBytes(10)).expect(201)).body.id,
      (await uploadRaw(http, `/api/tickets/${ticketId}/attachments`, binaryBytes(10)).expect(201)).body.id,
    ].map(String);
    // A non-empty directory in a file's place: removing it fails.
    for (const id of [a, b]) {
      await rm(join(directory, id));
      await mkdir(join(directory, id));
      await writeFile(join(directory, id, 'x'), 'x');
    }
    await http.delete(`/api/v2/tickets/${ticketId}/attachments/${a}`).expect(204);
    await http.get(`/api/v2/tickets/${ticketId}/attachments/${a}`).expect(404);
    await http.delete(`/api/v2/tickets/${ticketId}`).expect(204);
    await http.get(`/api/v2/tickets/${ticketId}`).expect(404);
    for (const id of [a, b]) await rm(join(directory, id), { recursive: true });
  });

  it('leaves no file and no row when an upload is too large or the client disconnects midway', async () => {
    const ticketId = await newTicket();
    const [before, rowsBefore] = [await files(), await attachmentRowCounts(app)];
    await uploadRaw(http, `/api/tickets/${ticketId}/attachments`, binaryBytes(25 * MiB + 1)).expect(413);
    await eventually(
      'the upload rolled back',
      () => uploadInProgress(app, ticketId),
      (busy) => !busy,
    );
    expect(await files()).toEqual(before);
    await abortedUpload(port, `/api/tickets/${ticketId}/attachments`, 10 * MiB, 2 * MiB, () =>
      eventually(
        'the upload under way',
        () => uploadInProgress(app, ticketId),
        (busy) => busy,
      ),
    );
    await eventually(
      'the upload rolled back',
      () => uploadInProgress(app, ticketId),
      (busy) => !busy,
    );
    await eventually('the partial file removed', files, (names) => names.join() === before.join());
    expect(await attachmentRowCounts(app)).toEqual(rowsBefore);
  });

  it('sweeps what a crash left: old partial files and old files without an attachment go, a committed partial file is completed at once', async () => {
    const ticketId = await newTicket();
    const bytes = binaryBytes(100);
    const kept = String((await uploadRaw(http, `/api/tickets/${ticketId}/attachments`, bytes).expect(201)).body.id);
    // A crash between the commit and the rename leaves the committed attachment's bytes under a partial name.
    await rename(join(directory, kept), join(directory, `${kept}.aaaa.partial`));
    await writeFile(join(directory, '999999.bbbb.partial'), 'an upload that never committed');
    await writeFile(join(directory, '999998'), 'a deleted attachment');
    await writeFile(join(directory, '999997.cccc.partial'), 'an upload still running');
    await writeFile(join(directory, '999996'), 'an attachment just committed, its row not yet seen (young)');
    const hourAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    for (const name of ['999998', '999999.bbbb.partial']) await utimes(join(directory, name), hourAgo, hourAgo);

    const result = await app.get(OrphanSweeper).sweep();
    expect(result.completed).toEqual([`${kept}.aaaa.partial`]);
    expect(result.removed.sort()).toEqual(['999998', '999999.bbbb.partial']);
    expect(await files()).toEqual(expect.arrayContaining([kept, '999997.cccc.partial', '999996']));
    const content = await download(http, `/api/tickets/${ticketId}/attachments/${kept}/content`);
    expect(content.bytes.equals(bytes)).toBe(true);
  });
});
