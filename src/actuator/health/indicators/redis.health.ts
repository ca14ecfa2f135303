import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { AppConfig } from '../../../config/app-config.js';
import { RedisClient } from '../../../redis/redis.client.js';
import { probe } from '../health-probe.js';

/**
 * Spring's redis component: UP with the server's version while the connection answers. Informational here: the
 * rate limiter serves without Redis, so Redis being down never turns the overall status DOWN.
 */
@Injectable()
export class RedisHealthIndicator {
  private readonly timeoutMs: number;

  constructor(
    private readonly health: HealthIndicatorService,
    private readonly client: RedisClient,
    config: ConfigService<AppConfig, true>,
  ) {
    this.timeoutMs = config.get('management.healthTimeoutMs', { infer: true });
  }

  /** Only a service with Redis configured has the component, so the default health answer stays as it was. */
  get configured(): boolean {
    return this.client.connection !== undefined;
  }

  check<Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    return probe(this.health, key, this.timeoutMs, async () => {
      const unavailable = this.client.unavailableReason();
      if (unavailable) throw unavailable;
      const info = await this.client.connection!.info('server');
      return { up: true, details: { version: /^redis_version:(.+)$/m.exec(info)?.[1]?.trim() ?? 'unknown' } };
    });
  }
}
