import type { Transaction } from '../../database/transaction.js';
import type { AttachmentsRepository } from '../attachments.repository.js';
import { Gate } from '../gate.js';
import { type AttachmentStorage, CHUNK_BYTES, type ContentWriter } from './attachment-storage.js';

/**
 * How many chunk statements (inserts and reads) the process runs at once. A chunk travels through mysql2 as its bytes
 * in a packet (an insert is a prepared statement, a read's BLOB arrives as a Buffer), a copy or two of its MiB, so
 * memory grows with the chunks in flight, not with the uploads: an upload or download past the limit waits, its stream
 * paused, holding at most the chunk it has gathered.
 */
const CHUNKS_IN_FLIGHT = 4;

/**
 * The default storage: chunks in `attachment_chunks`, inserted in the upload's own transaction (decision 35), so a
 * backup of the database holds every attachment and a rollback leaves nothing. Deleting the row deletes the chunks.
 */
export class DatabaseStorage implements AttachmentStorage {
  readonly kind = 'database';
  private readonly gate = new Gate(CHUNKS_IN_FLIGHT);

  constructor(private readonly attachments: AttachmentsRepository) {}

  writer(transaction: Transaction, attachmentId: number): ContentWriter {
    let seq = 0;
    return {
      write: (chunk) => {
        const next = seq++;
        return this.gate.run(() => this.attachments.insertChunk(transaction, attachmentId, next, chunk));
      },
      finish: async () => undefined,
      committed: async () => undefined,
      abandon: async () => undefined,
    };
  }

  /** One chunk row per round trip: a download holds at most one chunk in memory and no connection between them. */
  async *read(attachmentId: number, start: number, end: number): AsyncIterable<Buffer> {
    for (let seq = Math.floor(start / CHUNK_BYTES); seq * CHUNK_BYTES <= end; seq++) {
      const data = await this.gate.run(() => this.attachments.chunk(attachmentId, seq));
      if (!data) throw new Error(`Chunk ${seq} of attachment ${attachmentId} is gone`);
      const offset = seq * CHUNK_BYTES;
      yield data.subarray(Math.max(0, start - offset), end - offset + 1);
    }
  }

  async removed(): Promise<void> {
    // The chunks went with their rows, in the delete's transaction.
  }
}
