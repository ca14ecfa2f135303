import { randomBytes } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ServiceUnavailableException } from '@nestjs/common';
import type { AttachmentStorage, ContentWriter } from './attachment-storage.js';

/** The suffix of a file still being written: the sweeper removes (or, when its attachment committed, completes) those left behind. */
export const PARTIAL_SUFFIX = '.partial';

/** The most of a file a download reads at once. */
const READ_BYTES = 256 * 1024;

/** A completed attachment's file name: its id. */
export function finalName(attachmentId: number): string {
  return String(attachmentId);
}

/** Makes the directory's entries (a file created or renamed in it) durable, as fsync of the file alone does not. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Attachments as files in one directory (e.g. a volume shared by the replicas). An upload writes `<id>.<random>.partial`,
 * fsyncs it before the metadata commits and renames it to `<id>` after: a file named by an id is always complete, and
 * one whose upload rolled back is removed at once (or, after a crash, by the sweeper, see OrphanSweeper).
 */
export class FilesystemStorage implements AttachmentStorage {
  readonly kind = 'filesystem';

  constructor(readonly directory: string) {}

  writer(_transaction: unknown, attachmentId: number): ContentWriter {
    const partial = join(this.directory, `${attachmentId}.${randomBytes(6).toString('hex')}${PARTIAL_SUFFIX}`);
    // The directory is the operator's (a volume), checked at start-up and by readiness: one gone meanwhile is not
    // made again (it would be on another disk than the volume's), the upload fails with a 503 instead.
    const file = open(partial, 'wx').catch((error: NodeJS.ErrnoException) => {
      throw new ServiceUnavailableException(
        `The attachment storage cannot be written (ATTACHMENTS_DIRECTORY: ${error.code ?? error.message})`,
      );
    });
    // Its failure is met by the first write; until then it must not count as unhandled.
    file.catch(() => undefined);
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await (await file).close();
    };
    return {
      write: async (chunk) => {
        const handle = await file;
        for (let offset = 0; offset < chunk.length;) offset += (await handle.write(chunk, offset)).bytesWritten;
      },
      finish: async () => {
        await (await file).sync();
        await close();
        await syncDirectory(this.directory);
      },
      committed: async () => {
        await rename(partial, join(this.directory, finalName(attachmentId)));
        await syncDirectory(this.directory);
      },
      abandon: async () => {
        await close().catch(() => undefined);
        // A failed removal (the directory gone meanwhile) must not replace the upload's own failure; what it leaves,
        // the sweeper removes.
        await rm(partial, { force: true }).catch(() => undefined);
      },
    };
  }

  /**
   * A piece at a time from one open file. An open file stays readable after it is removed, so before each piece its
   * name is looked up again: once the file is gone (its attachment deleted) or another stands in its place, the read
   * fails and the download ends short, as the database storage's does when its chunks go.
   */
  async *read(attachmentId: number, start: number, end: number): AsyncIterable<Buffer> {
    const path = join(this.directory, finalName(attachmentId));
    const handle = await open(path, 'r');
    try {
      const opened = await handle.stat();
      for (let position = start; position <= end;) {
        const current = await stat(path).catch(() => undefined);
        if (current?.ino !== opened.ino || current.dev !== opened.dev) throw new Error(`The file of attachment ${attachmentId} is gone`);
        const piece = Buffer.allocUnsafe(Math.min(READ_BYTES, end - position + 1));
        const { bytesRead } = await handle.read(piece, 0, piece.length, position);
        if (bytesRead === 0) throw new Error(`The file of attachment ${attachmentId} ends before byte ${position}`);
        position += bytesRead;
        yield piece.subarray(0, bytesRead);
      }
    } finally {
      await handle.close();
    }
  }

  async removed(attachmentIds: readonly number[]): Promise<void> {
    for (const id of attachmentIds) await rm(join(this.directory, finalName(id)), { force: true });
  }
}
