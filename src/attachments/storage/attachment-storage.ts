import type { AttachmentStorageKind } from '../../config/attachments-config.js';
import type { Transaction } from '../../database/transaction.js';

/** The size of the pieces an upload is stored in (a row of `attachment_chunks`), all but the last exactly this long. */
export const CHUNK_BYTES = 1024 * 1024;

/** An upload's bytes on their way into a storage, inside the upload's transaction. */
export interface ContentWriter {
  /** Stores the next chunk; resolves once it is stored, so the upload reads no further meanwhile. */
  write(chunk: Buffer): Promise<void>;
  /** Every chunk is written: make them durable, before the metadata commits. */
  finish(): Promise<void>;
  /** The metadata committed: make the bytes visible under the attachment. */
  committed(): Promise<void>;
  /** The upload failed and rolled back: leave nothing behind. */
  abandon(): Promise<void>;
}

/** Where attachments' bytes live; the metadata is always in `ticket_attachments`. */
export interface AttachmentStorage {
  readonly kind: AttachmentStorageKind;
  writer(transaction: Transaction, attachmentId: number): ContentWriter;
  /** The bytes `start` to `end` (inclusive), a piece at a time; fails when they are gone (the attachment was deleted). */
  read(attachmentId: number, start: number, end: number): AsyncIterable<Buffer>;
  /** The attachments' rows are deleted and committed: remove what is left of their bytes. */
  removed(attachmentIds: readonly number[]): Promise<void>;
}
