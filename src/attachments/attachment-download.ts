import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BadRequestException, HttpException, HttpStatus } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ifNoneMatchSatisfied } from '../common/http/conditional-get.js';
import { dispositionHeader } from './attachment-filename.js';
import { mayBeInline } from './content-sniffing.js';
import type { AttachmentResponse } from './dto/attachment-response.dto.js';

/** The content's strong entity tag: its SHA-256, which only the same bytes have. */
export function contentEtag(attachment: Pick<AttachmentResponse, 'sha256'>): string {
  return `"${attachment.sha256}"`;
}

/** The disposition a download asks for (`?disposition=inline`), granted only to the types a browser may show safely. */
export function dispositionOf(request: Request, contentType: string): 'attachment' | 'inline' {
  const asked = request.query.disposition;
  if (asked === undefined || asked === 'attachment') return 'attachment';
  if (asked !== 'inline') throw new BadRequestException('disposition must be "attachment" or "inline"');
  return mayBeInline(contentType) ? 'inline' : 'attachment';
}

export function rangeNotSatisfiable(size: number): HttpException {
  return new HttpException(`The range lies outside the content, which has ${size} bytes`, HttpStatus.REQUESTED_RANGE_NOT_SATISFIABLE);
}

/** The part of the content a request asks for: all of it, or one range (206); undefined for a 304 already answered. */
export type ContentPart = { start: number; end: number; partial: boolean };

/**
 * Sets a download's headers and answers conditional and range requests: If-None-Match with the SHA-256 → 304;
 * one satisfiable range (If-Range, when given, naming this content) → 206; several ranges → the whole content (200),
 * as RFC 9110 allows; an unsatisfiable range → 416. The headers keep a browser from rendering what it downloads
 * (nosniff, a sandboxing CSP, attachment unless the type may be inline).
 */
export function prepareDownload(request: Request, response: Response, attachment: AttachmentResponse): ContentPart | undefined {
  const etag = contentEtag(attachment);
  response.setHeader('ETag', etag);
  response.setHeader('Accept-Ranges', 'bytes');
  response.setHeader('Content-Type', attachment.contentType);
  response.setHeader('Content-Disposition', dispositionHeader(attachment.filename, dispositionOf(request, attachment.contentType)));
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Content-Security-Policy', "sandbox; default-src 'none'");
  response.setHeader('Cache-Control', 'private, no-cache');
  const ifNoneMatch = request.get('If-None-Match');
  if (ifNoneMatch !== undefined && ifNoneMatchSatisfied(ifNoneMatch, etag)) {
    response.status(304).end();
    return undefined;
  }
  const whole = { start: 0, end: attachment.size - 1, partial: false };
  const ifRange = request.get('If-Range');
  if (ifRange !== undefined && ifRange.trim() !== etag) return whole;
  const ranges = request.range(attachment.size, { combine: true });
  if (ranges === -1) {
    response.setHeader('Content-Range', `bytes */${attachment.size}`);
    throw rangeNotSatisfiable(attachment.size);
  }
  if (ranges === undefined || ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return whole;
  const [{ start, end }] = ranges;
  response.status(206).setHeader('Content-Range', `bytes ${start}-${end}/${attachment.size}`);
  return { start, end, partial: true };
}

/**
 * Streams the pieces into the response with back-pressure (pipeline), so a slow client holds at most a piece or two in
 * memory. The first piece is read before a byte is sent, so its failure still gets an error answer; a failure later (the
 * attachment deleted meanwhile, the database gone) can no longer change the status: the connection is cut, so the
 * client sees a short body rather than a complete-looking one.
 */
export async function streamContent(response: Response, part: ContentPart, pieces: AsyncIterable<Buffer>): Promise<void> {
  const iterator = pieces[Symbol.asyncIterator]();
  const first = await iterator.next();
  response.setHeader('Content-Length', String(part.end - part.start + 1));
  async function* all(): AsyncGenerator<Buffer> {
    if (first.done) return;
    yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  // On a failure, pipeline has destroyed the response, which cuts the connection.
  await pipeline(Readable.from(all()), response).catch(() => undefined);
}
