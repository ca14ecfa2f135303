import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AttachmentStorage, ContentWriter } from './attachment-storage.js';

/** The suffix of a file still being written: the sweeper removes (or, when its attachment committed, completes) those left behind. */
export const PARTIAL_SUFFIX = '.partial';

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
    const file = mkdir(this.directory, { recursive: true }).then(() => open(partial, 'wx'));
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
        await rm(partial, { force: true });
      },
    };
  }

  async *read(attachmentId: number, start: number, end: number): AsyncIterable<Buffer> {
    yield* createReadStream(join(this.directory, finalName(attachmentId)), {
      start,
      end,
      highWaterMark: 256 * 1024,
    }) as AsyncIterable<Buffer>;
  }

  async removed(attachmentIds: readonly number[]): Promise<void> {
    for (const id of attachmentIds) await rm(join(this.directory, finalName(id)), { force: true });
  }
}
