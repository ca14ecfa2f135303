import { Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';

const logger = new Logger('Lists');

/** What one write to the socket carries at least (but the first): a million rows are a few thousand writes. */
const CHUNK_BYTES = 64 * 1024;
const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/**
 * The lists being written take turns: one chunk of one list per turn of the event loop, whatever their number.
 * The rows of a fast source for a fast client would otherwise be read, written and read again within one turn,
 * megabytes at a time, and four lists at once four times that, while every other request waits for the next turn.
 */
export class Turns {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  wait(next: () => void): void {
    this.waiting.push(next);
    if (!this.scheduled) this.schedule();
  }

  private schedule(): void {
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()?.();
      if (this.waiting.length > 0 && !this.scheduled) this.schedule();
    });
  }
}

const turns = new Turns();

/**
 * Answers 200 with `items` (a stream, its first item already arrived) as a JSON array, written as the items come,
 * each as `json(item)`: the same bytes as res.json(array) of the same objects, since JSON.stringify of an array of
 * plain objects is `[`, their JSON joined by `,`, and `]`, which is all the framing written here (by hand: a JSON
 * streaming library writes its own layout, which would have to match Express's byte for byte). The body is chunked,
 * without Content-Length (unknown before the end) and, as every list before it, without an ETag. Back-pressure: the
 * items stop flowing while the socket's buffer is full. A client that goes away destroys `items` (which stops their
 * source). A failure after the first byte is logged once and destroys the connection: the client gets a body without
 * its closing `]` and a chunked body without its last chunk, never a shorter array it could take for the whole.
 */
export function sendJsonArray<T>(request: Request, response: Response, items: Readable, json: (item: T) => string | Buffer): void {
  // The client went away while the first row was awaited: nobody to write to.
  if (response.destroyed) {
    items.destroy();
    return;
  }
  // As res.json would: a GET with `If-None-Match: *` is answered 304, a HEAD without the body (nor reading it).
  if (request.fresh || request.method === 'HEAD') {
    items.destroy();
    if (request.fresh) response.status(304);
    else response.type('application/json');
    response.end();
    return;
  }
  response.type('application/json');
  // The chunk being gathered: the JSON of rows and the commas between them, as bytes, `size` of them.
  let parts: Buffer[] = [OPEN];
  let size = 1;
  let failed = false;
  const resume = () => items.resume();
  // After each chunk the list waits for its turn (and, while the socket's buffer is full, for it to drain).
  const flush = () => {
    const chunk = Buffer.concat(parts, size);
    parts = [];
    size = 0;
    items.pause();
    if (response.write(chunk)) turns.wait(resume);
  };
  const add = (part: Buffer) => {
    parts.push(part);
    size += part.length;
  };
  response.on('drain', () => turns.wait(resume));
  response.once('close', () => {
    if (!response.writableFinished) items.destroy();
  });
  let first = true;
  items.on('data', (item: T) => {
    const written = json(item);
    if (!first) add(COMMA);
    add(typeof written === 'string' ? Buffer.from(written) : written);
    if (first || size >= CHUNK_BYTES) flush();
    first = false;
  });
  items.once('end', () => {
    add(CLOSE);
    response.end(Buffer.concat(parts, size));
  });
  items.once('error', (error: Error) => {
    if (failed || response.destroyed) return;
    failed = true;
    logger.error(`${request.method} ${request.originalUrl} failed after the first byte, the connection is closed: ${error.message}`);
    response.destroy();
  });
}
