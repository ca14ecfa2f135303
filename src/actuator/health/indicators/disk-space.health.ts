import { statfs } from 'node:fs/promises';
import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { AppConfig } from '../../../config/app-config.js';
import { probe } from '../health-probe.js';

/** Spring's diskSpace component for the working directory: DOWN when less than the threshold is free. */
@Injectable()
export class DiskSpaceHealthIndicator {
  private readonly threshold: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly health: HealthIndicatorService,
    config: ConfigService<AppConfig, true>,
  ) {
    this.threshold = config.get('management.diskSpaceThreshold', { infer: true });
    this.timeoutMs = config.get('management.healthTimeoutMs', { infer: true });
  }

  check<Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    return probe(this.health, key, this.timeoutMs, async () => {
      const directory = process.cwd();
      const stats = await statfs(directory);
      const total = stats.blocks * stats.bsize;
      // Usable by this process (excludes blocks reserved for root), as Java's File.getUsableSpace() counts.
      const free = stats.bavail * stats.bsize;
      // Spring reports the absolute path of new File("."), hence the trailing "/.".
      const details = { total, free, threshold: this.threshold, path: `${directory}/.`, exists: true };
      return { up: free >= this.threshold, details };
    });
  }
}
