import { createHash } from 'node:crypto';
import { BadRequestException, RequestTimeoutException } from '@nestjs/common';
import { type IncomingFile, tooLarge } from './attachment-upload.js';
import { SNIFF_BYTES } from './content-sniffing.js';
import { CHUNK_BYTES, type ContentWriter } from './storage/attachment-storage.js';

/** The least of the body that must arrive in each ATTACHMENTS_UPLOAD_IDLE_TIMEOUT_MS for an upload to go on. */
const PROGRESS_BYTES = 64 * 1024;

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
 * so an upload holds about one chunk in memory. Past the size limit it stops at once with the 413; a client that sends
 * less than 64 KiB in `idleTimeoutMs` (the time a chunk is being stored does not count) fails it with 408.
 */
export async function receiveContent(
  file: IncomingFile,
  writer: ContentWriter,
  maxFileSize: number,
  idleTimeoutMs: number,
): Promise<ReceivedContent> {
  const hash = createHash('sha256');
  let size = 0;
  let head = Buffer.alloc(0);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let progress = 0;
  let timer: NodeJS.Timeout | undefined;
  const idle = () => {
    clearTimeout(timer);
    progress = 0;
    timer = setTimeout(() => {
      file.content.destroy(new RequestTimeoutException(`The upload sent less than ${PROGRESS_BYTES} bytes in ${idleTimeoutMs} ms`));
    }, idleTimeoutMs);
  };
  try {
    idle();
    for await (const piece of file.content.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      progress += piece.length;
      if (progress >= PROGRESS_BYTES) idle();
      size += piece.length;
      if (size > maxFileSize) throw tooLarge(maxFileSize);
      hash.update(piece);
      if (head.length < SNIFF_BYTES) head = Buffer.concat([head, piece.subarray(0, SNIFF_BYTES - head.length)]);
      pending.push(piece);
      pendingBytes += piece.length;
      while (pendingBytes >= CHUNK_BYTES) {
        const joined = Buffer.concat(pending, pendingBytes);
        clearTimeout(timer);
        await writer.write(joined.subarray(0, CHUNK_BYTES));
        idle();
        pending = pendingBytes > CHUNK_BYTES ? [joined.subarray(CHUNK_BYTES)] : [];
        pendingBytes -= CHUNK_BYTES;
      }
    }
  } finally {
    clearTimeout(timer);
  }
  if (size === 0) throw new BadRequestException('The attachment is empty');
  if (pendingBytes > 0) await writer.write(Buffer.concat(pending, pendingBytes));
  return { size, sha256: hash.digest('hex'), head };
}
