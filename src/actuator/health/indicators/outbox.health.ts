import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { AppConfig } from '../../../config/app-config.js';
import { type OutboxBacklog, OutboxRelay } from '../../../outbox/outbox.relay.js';
import { probe } from '../health-probe.js';

/**
 * Events not yet handed to the broker, and the outbox partitions this replica publishes for. Informational: a backlog is what the outbox is for (writes go on while the
 * broker is away), so it is UP whenever it can be read and never decides the overall status.
 */
@Injectable()
export class OutboxHealthIndicator {
  private readonly timeoutMs: number;

  constructor(
    private readonly health: HealthIndicatorService,
    private readonly relay: OutboxRelay,
    config: ConfigService<AppConfig, true>,
  ) {
    this.timeoutMs = config.get('management.healthTimeoutMs', { infer: true });
  }

  check<Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    return probe(this.health, key, this.timeoutMs, async () => ({
      up: true,
      details: { ...backlogDetails(await this.relay.backlog(), Date.now()), partitionsHeld: this.relay.heldPartitions() },
    }));
  }
}

export function backlogDetails(backlog: OutboxBacklog, now: number): Record<string, unknown> {
  const oldest = backlog.oldestPendingAt;
  return {
    pending: backlog.pending,
    oldestPendingAt: oldest?.toISOString() ?? null,
    oldestPendingAgeMs: oldest ? Math.max(0, now - oldest.getTime()) : null,
    parked: backlog.parked,
  };
}
