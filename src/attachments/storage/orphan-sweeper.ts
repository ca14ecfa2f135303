import { readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../../config/app-config.js';
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
 * Removes what a crash left in the filesystem storage: partial files older than ATTACHMENTS_ORPHAN_AGE_MS (an upload in
 * progress is younger, as no upload outlasts SERVER_REQUEST_TIMEOUT_MS), and files whose attachment no longer exists (a
 * crash between a delete's commit and the file's removal). A partial file whose attachment did commit (a crash between
 * the commit and the rename) is completed instead. Runs at start-up and every 10 minutes, with the filesystem storage only.
 */
@Injectable()
export class OrphanSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OrphanSweeper.name);
  private readonly orphanAgeMs: number;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly storages: AttachmentStorages,
    private readonly attachments: AttachmentsRepository,
    config: ConfigService<AppConfig, true>,
  ) {
    this.orphanAgeMs = config.get('attachments', { infer: true }).orphanAgeMs;
  }

  onApplicationBootstrap(): void {
    if (!this.storages.filesystem) return;
    const run = () => void this.sweep().catch((error: unknown) => this.logger.warn(`Sweeping attachment files failed: ${String(error)}`));
    run();
    this.timer = setInterval(run, SWEEP_INTERVAL_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
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
      if (FINAL.test(name)) {
        if (stored.has(Number(name))) continue;
        await rm(path, { force: true });
        result.removed.push(name);
        continue;
      }
      const partial = PARTIAL.exec(name);
      if (!partial) continue;
      const modified = await stat(path).then(
        (info) => info.mtimeMs,
        () => undefined,
      );
      if (modified === undefined || modified > cutoff) continue;
      const id = Number(partial[1]);
      if (stored.has(id) && !names.includes(finalName(id))) {
        await rename(path, join(directory, finalName(id)));
        result.completed.push(name);
      } else {
        await rm(path, { force: true });
        result.removed.push(name);
      }
    }
    if (result.removed.length + result.completed.length > 0) {
      this.logger.log(`Attachment files swept: ${result.removed.length} removed, ${result.completed.length} completed`);
    }
    return result;
  }
}
