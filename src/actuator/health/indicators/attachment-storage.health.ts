import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { storageDirectoryProblem } from '../../../config/storage-directory.js';
import type { AppConfig } from '../../../config/app-config.js';
import { probe } from '../health-probe.js';

/**
 * The filesystem storage's directory (ATTACHMENTS_DIRECTORY), present only when it is set: UP while it is a directory
 * that takes a new file, DOWN once it does not (removed, replaced, remounted read-only), as every upload would fail.
 * Start-up checks the same (a ConfigError); this notices what happens to the directory while the service runs.
 */
@Injectable()
export class AttachmentStorageHealthIndicator {
  readonly directory: string;
  private readonly timeoutMs: number;

  constructor(
    private readonly health: HealthIndicatorService,
    config: ConfigService<AppConfig, true>,
  ) {
    this.directory = config.get('attachments', { infer: true }).directory;
    this.timeoutMs = config.get('management.healthTimeoutMs', { infer: true });
  }

  get configured(): boolean {
    return this.directory !== '';
  }

  check<Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    return probe(this.health, key, this.timeoutMs, async () => {
      const problem = await storageDirectoryProblem(this.directory);
      if (problem) throw new Error(`ATTACHMENTS_DIRECTORY ${this.directory} ${problem}`);
      return { up: true, details: { path: this.directory } };
    });
  }
}
