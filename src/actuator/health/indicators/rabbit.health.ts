import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { AppConfig } from '../../../config/app-config.js';
import { RabbitMqClient } from '../../../messaging/rabbitmq.client.js';
import { probe } from '../health-probe.js';

/** Spring's rabbit component: UP with the broker's version while the publishing connection is up. */
@Injectable()
export class RabbitHealthIndicator {
  private readonly timeoutMs: number;

  constructor(
    private readonly health: HealthIndicatorService,
    private readonly client: RabbitMqClient,
    config: ConfigService<AppConfig, true>,
  ) {
    this.timeoutMs = config.get('management.healthTimeoutMs', { infer: true });
  }

  /**
   * Reads the connection the events go out on rather than opening one per check; a broker that stops answering
   * is noticed by the connection's heartbeat (5 s) and reported from then on.
   */
  check<Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    return probe(this.health, key, this.timeoutMs, async () => {
      // Right after start-up the connection may still be on its way; that is not an outage.
      await this.client.firstConnectionAttempt();
      const version = this.client.brokerVersion();
      if (!this.client.isConnected() || version === undefined) {
        throw this.client.connectionError() ?? new Error('RabbitMQ connection is not established');
      }
      return { up: true, details: { version } };
    });
  }
}
