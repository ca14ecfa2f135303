import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Redis } from 'ioredis';
import type { AppConfig } from '../config/app-config.js';

/** How long connecting may take before Redis counts as unreachable (and start-up goes on without it). */
const CONNECT_TIMEOUT_MS = 2_000;

/**
 * The one Redis connection of the service (`SPRING_DATA_REDIS_URL`), when one is configured. Redis holds state
 * shared by the replicas (rate-limit counters) that the service can do without for a while: nothing waits for it.
 * Commands fail at once while the connection is down (no offline queue) and within `commandTimeoutMs` when
 * Redis hangs; the connection is made again in the background.
 */
@Injectable()
export class RedisClient implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly connection?: Redis;
  private lastError?: Error;

  constructor(config: ConfigService<AppConfig, true>) {
    const { url, commandTimeoutMs } = config.get('redis', { infer: true });
    if (url === undefined) return;
    this.connection = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      commandTimeout: commandTimeoutMs,
      connectTimeout: CONNECT_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    // Reported by health and by the users of the connection; without a listener ioredis would print each one.
    this.connection.on('error', (error: Error) => (this.lastError = error));
    this.connection.on('ready', () => (this.lastError = undefined));
  }

  /** Why Redis cannot be used right now, or undefined while it is connected. */
  unavailableReason(): Error | undefined {
    if (this.connection?.status === 'ready') return undefined;
    return this.lastError ?? new Error(`Redis connection is ${this.connection?.status ?? 'not configured'}`);
  }

  /** The first connection attempt, bounded by the connect timeout; a failure leaves reconnecting to the background. */
  async onApplicationBootstrap(): Promise<void> {
    await this.connection?.connect().catch(() => undefined);
  }

  onApplicationShutdown(): void {
    this.connection?.disconnect();
  }
}
