import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import type request from 'supertest';
import type { Response, Test } from 'supertest';
import type { DataSource } from 'typeorm';
import { getDataSourceToken } from '@nestjs/typeorm';

export const MiB = 1024 * 1024;

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Random bytes that no sniffing takes for text or a known format (they start with a NUL). */
export function binaryBytes(size: number): Buffer {
  const bytes = randomBytes(size);
  if (size > 0) bytes[0] = 0;
  return bytes;
}

/** Uploads `bytes` as the `file` part of a multipart/form-data body. */
export function uploadMultipart(
  http: ReturnType<typeof request>,
  path: string,
  bytes: Buffer,
  filename = 'file.bin',
  contentType = 'application/octet-stream',
): Test {
  return http.post(path).attach('file', bytes, { filename, contentType });
}

/** Uploads `bytes` as the raw body, named by Content-Disposition's filename*. */
export function uploadRaw(
  http: ReturnType<typeof request>,
  path: string,
  bytes: Buffer,
  filename = 'file.bin',
  contentType = 'application/octet-stream',
): Test {
  return http
    .post(path)
    .set('Content-Type', contentType)
    .set('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(filename)}`)
    .send(bytes);
}

/** Downloads as bytes (supertest would parse text or JSON). */
export async function download(
  http: ReturnType<typeof request>,
  path: string,
  headers: Record<string, string> = {},
): Promise<Response & { bytes: Buffer }> {
  const response = await http
    .get(path)
    .set(headers)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
  return Object.assign(response, { bytes: response.body as Buffer });
}

/** Counts of the attachment tables' rows (all tickets), straight from the database. */
export async function attachmentRowCounts(app: INestApplication): Promise<{ attachments: number; chunks: number }> {
  const dataSource = app.get<DataSource>(getDataSourceToken());
  const [[{ n: attachments }], [{ n: chunks }]] = await Promise.all([
    dataSource.query('SELECT COUNT(*) AS n FROM ticket_attachments'),
    dataSource.query('SELECT COUNT(*) AS n FROM attachment_chunks'),
  ]);
  return { attachments: Number(attachments), chunks: Number(chunks) };
}

/**
 * Whether an upload to the ticket is in progress: its uncommitted row is locked, so a locking read of the ticket's
 * attachments that will not wait (NOWAIT) fails while it lasts, and succeeds once the upload committed or rolled back.
 */
export async function uploadInProgress(app: INestApplication, ticketId: number): Promise<boolean> {
  const dataSource = app.get<DataSource>(getDataSourceToken());
  try {
    await dataSource.query('SELECT id FROM ticket_attachments WHERE ticket_id = ? FOR UPDATE NOWAIT', [ticketId]);
    return false;
  } catch {
    return true;
  }
}

/**
 * Sends the head of a raw upload of `declared` bytes, `sent` of them, waits for `inProgress` (e.g. until the server's
 * transaction is open), then cuts the connection; resolves once the socket is gone.
 */
export function abortedUpload(
  port: number,
  path: string,
  declared: number,
  sent: number,
  inProgress: () => Promise<unknown>,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path,
      headers: { 'content-type': 'application/octet-stream', 'content-length': declared },
    });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.write(binaryBytes(sent), () => {
      inProgress().then(() => req.destroy(), reject);
    });
  });
}

/** Polls `condition` until it holds, at most `tries` times `everyMs` apart; fails with `what` otherwise. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T>,
  condition: (value: T) => boolean,
  tries = 200,
  everyMs = 50,
): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < tries; i++) {
    last = await probe();
    if (condition(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`${what}: still ${JSON.stringify(last)}`);
}

/**
 * Sends the head of a multipart upload and a field that is not the file (the file part never comes), waits for
 * `inProgress`, then cuts the connection; resolves once the socket is gone.
 */
export function abortedMultipart(port: number, path: string, inProgress: () => Promise<unknown>): Promise<void> {
  const boundary = 'cut-off-boundary';
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': 10 * MiB },
    });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nfirst\r\n`, () => {
      inProgress().then(() => req.destroy(), reject);
    });
  });
}

/**
 * Transactions open in the test's database, on connections other than the one asking. MariaDB serves
 * information_schema.innodb_trx from a copy it renews only once nobody has read it for 100 ms: poll it less often
 * than that (OPEN_TRANSACTIONS_POLL_MS), or every read after the first sees the same stale copy.
 */
export const OPEN_TRANSACTIONS_POLL_MS = 150;

export async function openTransactions(app: INestApplication): Promise<number> {
  const dataSource = app.get<DataSource>(getDataSourceToken());
  const [{ n }] = await dataSource.query(
    `SELECT COUNT(*) AS n FROM information_schema.innodb_trx t JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id
      WHERE p.db = DATABASE() AND p.id <> CONNECTION_ID()`,
  );
  return Number(n);
}

/** A raw upload sent in chunks of 1 byte, one every `everyMs`, `bytes` in all; resolves with the status of the answer. */
export function trickledUpload(port: number, path: string, bytes: number, everyMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': 'application/octet-stream' } });
    let sent = 0;
    const timer = setInterval(() => {
      if (req.destroyed) return clearInterval(timer);
      if (sent++ < bytes) req.write(Buffer.from([sent % 256]));
      else {
        clearInterval(timer);
        req.end();
      }
    }, everyMs);
    req.on('response', (response) => {
      clearInterval(timer);
      response.resume();
      resolve(response.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', (error) => {
      clearInterval(timer);
      reject(error);
    });
  });
}
