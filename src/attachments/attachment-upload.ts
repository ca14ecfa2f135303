import { finished, PassThrough, type Readable } from 'node:stream';
import { assertIdentityEncoding } from '../common/http/content-encoding.js';
import { BadRequestException, HttpException, PayloadTooLargeException } from '@nestjs/common';
import busboy from 'busboy';
import type { Request } from 'express';
import typeIs from 'type-is';
import { filenameFromDisposition } from './attachment-filename.js';

/** The upload routes: their bodies are streamed into storage, never parsed by the JSON body parser. */
export const ATTACHMENT_UPLOAD_PATH = /^\/api(?:\/v2)?\/tickets\/[^/]+\/attachments\/?$/i;

/** The form field that carries the file in a multipart upload. */
export const FILE_FIELD = 'file';

/** Room for a multipart body's boundaries and part headers on top of the file itself, when judging Content-Length. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** A file arriving in a request: its bytes as a stream, and what the client said about it. */
export interface IncomingFile {
  filename: string | undefined;
  declaredType: string | undefined;
  content: Readable;
  /** Settles once the whole body is read: fails when a multipart body turns out wrong after the file (another file part). */
  ended: Promise<void>;
}

export function tooLarge(maxFileSize: number): PayloadTooLargeException {
  return new PayloadTooLargeException(`Attachment is larger than ${maxFileSize} bytes (ATTACHMENTS_MAX_FILE_SIZE)`);
}

/**
 * Refuses at once what can be refused before a byte of the body is read: a body declared larger than the limit
 * (413), or content encoded for transport (415: the bytes are stored as they come, so they must be the file's).
 */
export function checkUploadHeaders(request: Request, maxFileSize: number): void {
  assertIdentityEncoding(request, 'uploads');
  const length = Number(request.headers['content-length'] ?? 0);
  const overhead = typeIs(request, ['multipart/form-data']) ? MULTIPART_OVERHEAD_BYTES : 0;
  if (length > maxFileSize + overhead) throw tooLarge(maxFileSize);
}

/**
 * The file of an upload: the `file` part of a multipart/form-data body, or else the raw body with its Content-Type and
 * the filename of its Content-Disposition. The bytes are read only as the caller consumes `content`.
 */
export function incomingFile(request: Request): Promise<IncomingFile> {
  if (typeIs(request, ['multipart/form-data'])) return multipartFile(request);
  const content = new PassThrough();
  forwardAbort(request, content);
  request.pipe(content);
  return Promise.resolve({
    filename: filenameFromDisposition(request.headers['content-disposition']),
    declaredType: request.headers['content-type'],
    content,
    ended: Promise.resolve(),
  });
}

function malformed(error: Error): BadRequestException {
  return new BadRequestException(`Malformed multipart/form-data: ${error.message}`);
}

/** The failure of an upload whose client closed its connection before its body ended. */
function clientGone(): BadRequestException {
  return new BadRequestException('The client closed the connection before the upload ended');
}

/**
 * A request the client gave up (closed its connection) before its body ended fails the stream it feeds, so the upload
 * stops and rolls back; otherwise the stream would wait for bytes that never come. `finished` also reports a request
 * that was already gone when this is called (while the upload waited for its turn or its connection).
 */
function forwardAbort(request: Request, content: Readable): void {
  // The stream may fail before the upload reads it (while its row is inserted): the reader meets the error then, from
  // the stream's state; meanwhile it must not count as unhandled.
  content.on('error', () => undefined);
  finished(request, { writable: false }, (error) => {
    if (error && !request.complete) content.destroy(clientGone());
  });
}

function multipartFile(request: Request): Promise<IncomingFile> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: request.headers,
        defParamCharset: 'utf8',
        preservePath: true,
        // Fields other than the file are not used: short ones (longer are cut), few of them.
        limits: { files: 1, fields: 20, parts: 25, fieldSize: 1024 },
      });
    } catch (error) {
      return reject(malformed(error as Error));
    }
    let found: Readable | undefined;
    let endedOk: () => void = () => undefined;
    let endedFailed: (error: Error) => void = () => undefined;
    const ended = new Promise<void>((ok, failed) => {
      endedOk = ok;
      endedFailed = failed;
    });
    ended.catch(() => undefined);
    const fail = (failure: Error) => {
      found?.destroy(failure);
      endedFailed(failure);
      reject(failure);
    };
    parser.on('file', (field, stream, info) => {
      if (field !== FILE_FIELD) {
        stream.resume();
        return fail(new BadRequestException(`The multipart/form-data body may have one file part only, named "${FILE_FIELD}"`));
      }
      found = stream;
      malformedAsBadRequest(stream);
      forwardAbort(request, stream);
      resolve({ filename: info.filename, declaredType: info.mimeType, content: stream, ended });
    });
    parser.on('filesLimit', () =>
      fail(new BadRequestException(`The multipart/form-data body may have one file part only, named "${FILE_FIELD}"`)),
    );
    const tooMany = () => fail(new BadRequestException('The multipart/form-data body has too many parts'));
    parser.on('fieldsLimit', tooMany);
    parser.on('partsLimit', tooMany);
    parser.on('error', (error: Error) => fail(malformed(error)));
    parser.on('close', () => {
      endedOk();
      if (!found) reject(new BadRequestException(`The multipart/form-data body has no file part named "${FILE_FIELD}"`));
    });
    if (request.destroyed || request.readableAborted) return reject(clientGone());
    // A request cut off before its end (or before this) never ends the parser: it fails the upload instead of leaving
    // it waiting forever. (Not pipeline: it would destroy the request on a malformed body, and the client get no 400.)
    finished(request, { writable: false }, (error) => {
      if (error && !request.complete) fail(clientGone());
    });
    request.pipe(parser);
  });
}

/**
 * A body that ends inside the file part (no closing boundary) makes busboy fail the file's stream itself, with a plain
 * Error ("Unexpected end of form", "Unexpected end of file"), before its own 'error' event: the upload reading the
 * stream would meet that error first and answer 500. Every failure busboy gives the stream is the body's fault, so it
 * fails the stream as the 400 a malformed body is; the failures of our own (413, 408, the client gone) pass unchanged.
 */
function malformedAsBadRequest(stream: Readable): void {
  const destroy = stream.destroy.bind(stream);
  stream.destroy = (error?: Error) => destroy(error === undefined || error instanceof HttpException ? error : malformed(error));
}

/**
 * After an upload that stopped early (413, a failure), the rest of the body is read and dropped, so the client, which
 * may still be sending, gets the answer instead of a reset connection.
 */
export function discardRest(request: Request): void {
  request.unpipe();
  if (!request.complete) request.resume();
}
