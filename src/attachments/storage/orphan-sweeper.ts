import { readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../../config/app-config.js';
import { PeriodicWorker } from '../../database/periodic-worker.js';
import { AttachmentsRepository } from '../attachments.repository.js';
import { AttachmentStorages } from './attachment-storages.js';
import { finalName, PARTIAL_SUFFIX } from './filesystem-storage.js';

/** How often each replica sweeps; its work is idempotent, so replicas sweeping the same volume do no harm. */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

const PARTIAL = new RegExp(`^(\\d+)\\.[0-9a-f]+${PARTIAL_SUFFIX.replace('.', '\\.')}$`);
const FINAL = /^\d+$/;

export interface SweepResult {
  removed: string[];
  completed: string[];
}

/**
 * Removes what a crash left in the filesystem storage: partial files and files whose attachment no longer exists (a
 * crash between a delete's commit and the file's removal), once older than ATTACHMENTS_ORPHAN_AGE_MS (an upload in
 * progress is younger, as no upload outlasts SERVER_REQUEST_TIMEOUT_MS) and still without a row just before removal.
 * A partial file whose attachment did commit (a crash between the commit and the rename) is completed at once. Runs at start-up and every 10 minutes, with the filesystem storage only.
 */
async function olderThan(path: string, cutoff: number): Promise<boolean> {
  return stat(path).then(
    (info) => info.mtimeMs <= cutoff,
    () => false,
  );
}

@Injectable()
export class OrphanSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OrphanSweeper.name);
  private readonly orphanAgeMs: number;
  private readonly worker = new PeriodicWorker({
    name: OrphanSweeper.name,
    intervalMs: SWEEP_INTERVAL_MS,
    pass: () => this.sweep().then(() => false),
  });

  constructor(
    private readonly storages: AttachmentStorages,
    private readonly attachments: AttachmentsRepository,
    config: ConfigService<AppConfig, true>,
  ) {
    this.orphanAgeMs = config.get('attachments', { infer: true }).orphanAgeMs;
  }

  onApplicationBootstrap(): void {
    if (this.storages.filesystem) this.worker.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker.stop();
  }

  async sweep(orphanAgeMs = this.orphanAgeMs): Promise<SweepResult> {
    const result: SweepResult = { removed: [], completed: [] };
    const directory = this.storages.filesystem?.directory;
    if (!directory) return result;
    const names = await readdir(directory).catch(() => [] as string[]);
    const ids = names.flatMap((name) => {
      const id = FINAL.test(name) ? name : PARTIAL.exec(name)?.[1];
      return id ? [Number(id)] : [];
    });
    const stored = new Set(
      (await this.attachments.findMany([...new Set(ids)])).filter((a) => a.storage === 'filesystem').map((attachment) => attachment.id),
    );
    const cutoff = Date.now() - orphanAgeMs;
    for (const name of names) {
      const path = join(directory, name);
      const partial = PARTIAL.exec(name);
      const id = Number(FINAL.test(name) ? name : partial?.[1]);
      if (!partial && !FINAL.test(name)) continue;
      if (stored.has(id)) {
        // Committed: a partial file is its bytes left unrenamed by a crash, completed at once, whatever its age.
        if (partial && !names.includes(finalName(id))) {
          // ENOENT: its upload renamed it meanwhile.
          const renamed = await rename(path, join(directory, finalName(id))).then(
            () => true,
            (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? false : Promise.reject(error)),
          );
          if (renamed) result.completed.push(name);
        }
        continue;
      }
      // Without a row: an upload in progress, or one that committed since the look-up above, may own a young file.
      if (!(await olderThan(path, cutoff))) continue;
      if ((await this.attachments.findMany([id])).length > 0) continue;
      await rm(path, { force: true });
      result.removed.push(name);
    }
    if (result.removed.length + result.completed.length > 0) {
      this.logger.log(`Attachment files swept: ${result.removed.length} removed, ${result.completed.length} completed`);
    }
    return result;
  }
}
