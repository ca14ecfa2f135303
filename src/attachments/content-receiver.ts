import { createHash } from 'node:crypto';
import { BadRequestException } from '@nestjs/common';
import { type IncomingFile, tooLarge } from './attachment-upload.js';
import { SNIFF_BYTES } from './content-sniffing.js';
import { CHUNK_BYTES, type ContentWriter } from './storage/attachment-storage.js';

/** What an upload read from its stream. */
export interface ReceivedContent {
  size: number;
  sha256: string;
  /** The first bytes, for sniffing the type. */
  head: Buffer;
}

/**
 * Reads the stream to its end: each piece is hashed and counted, the first bytes kept for sniffing, and whole
 * chunks handed to the storage. The stream is not read further while a chunk is being stored (for await pauses it),
 * so an upload holds about one chunk in memory. Past the size limit it stops at once with the 413.
 */
export async function receiveContent(file: IncomingFile, writer: ContentWriter, maxFileSize: number): Promise<ReceivedContent> {
  const hash = createHash('sha256');
  let size = 0;
  let head = Buffer.alloc(0);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const piece of file.content.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += piece.length;
    if (size > maxFileSize) throw tooLarge(maxFileSize);
    hash.update(piece);
    if (head.length < SNIFF_BYTES) head = Buffer.concat([head, piece.subarray(0, SNIFF_BYTES - head.length)]);
    pending.push(piece);
    pendingBytes += piece.length;
    while (pendingBytes >= CHUNK_BYTES) {
      const joined = Buffer.concat(pending, pendingBytes);
      await writer.write(joined.subarray(0, CHUNK_BYTES));
      pending = pendingBytes > CHUNK_BYTES ? [joined.subarray(CHUNK_BYTES)] : [];
      pendingBytes -= CHUNK_BYTES;
    }
  }
  if (size === 0) throw new BadRequestException('The attachment is empty');
  if (pendingBytes > 0) await writer.write(Buffer.concat(pending, pendingBytes));
  return { size, sha256: hash.digest('hex'), head };
}
