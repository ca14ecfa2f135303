import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Counter, Gauge, Histogram } from '../observability/metrics/prom-client.js';
import type { AppConfig } from '../config/app-config.js';
import type { PublishOutcome } from '../messaging/rabbitmq.client.js';
import { type OutboxBacklog, OutboxRelay, type OutboxRelayObserver, type PendingEvent } from './outbox.relay.js';
import { MetricsRegistry } from '../observability/metrics/metrics.registry.js';

/** Publish lag boundaries, in seconds: from a few milliseconds (healthy) to an hour (a long broker outage). */
const LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/**
 * The outbox as Prometheus sees it. The backlog gauges are read from the change log at scrape time (one
 * indexed query, bounded by the health timeout), so they are the same on every replica: aggregate them with
 * max(), not sum(). Published events, failures and lag are this replica's own.
 */
@Injectable()
export class OutboxMetrics implements OnModuleInit, OutboxRelayObserver {
  private readonly published: Counter<'type'>;
  private readonly failures: Counter<'reason'>;
  private readonly lag: Histogram;
  private readonly timeoutMs: number;

  constructor(
    private readonly relay: OutboxRelay,
    metrics: MetricsRegistry,
    config: ConfigService<AppConfig, true>,
  ) {
    const registers = [metrics.registry];
    this.timeoutMs = config.get('management.healthTimeoutMs', { infer: true });
    const backlog = this.backlogOncePerScrape();
    new Gauge({
      name: 'outbox_events_pending',
      help: 'Events recorded and not yet confirmed by the broker (parked ones excluded); NaN when the database cannot say',
      registers,
      async collect() {
        this.set((await backlog())?.pending ?? NaN);
      },
    });
    new Gauge({
      name: 'outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest pending event (0 when none is pending)',
      registers,
      async collect() {
        const result = await backlog();
        const oldest = result?.oldestPendingAt;
        this.set(!result ? NaN : oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0);
      },
    });
    new Gauge({
      name: 'outbox_events_parked',
      help: 'Events the broker refused too often; they wait for an operator',
      registers,
      async collect() {
        this.set((await backlog())?.parked ?? NaN);
      },
    });
    new Gauge({
      name: 'outbox_relay_partitions_held',
      help: "Outbox partitions whose lease this replica's relay holds",
      registers,
      collect() {
        this.set(relay.heldPartitions().length);
      },
    });
    this.published = new Counter({
      name: 'outbox_events_published_total',
      help: 'Events the broker confirmed, by type',
      labelNames: ['type'],
      registers,
    });
    this.failures = new Counter({
      name: 'outbox_publish_failures_total',
      help: 'Events not confirmed: refused (nacked) by the broker, or unconfirmed (connection lost, no confirm in time)',
      labelNames: ['reason'],
      registers,
    });
    this.lag = new Histogram({
      name: 'outbox_publish_lag_seconds',
      help: "From an event's write (its occurredAt, just before the commit) to the broker's confirm",
      buckets: LAG_BUCKETS,
      registers,
    });
  }

  onModuleInit(): void {
    this.relay.observe(this);
  }

  relayed(events: PendingEvent[], outcomes: PublishOutcome[], confirmedAt: number): void {
    for (let i = 0; i < events.length; i++) {
      const outcome = outcomes[i];
      if (outcome.confirmed) {
        this.published.inc({ type: events[i].eventType });
        this.lag.observe(Math.max(0, (confirmedAt - new Date(events[i].occurredAt).getTime()) / 1000));
      } else {
        this.failures.inc({ reason: outcome.refused ? 'refused' : 'unconfirmed' });
      }
    }
  }

  /** The three backlog gauges of one scrape share one query. */
  private backlogOncePerScrape(): () => Promise<OutboxBacklog | undefined> {
    let current: Promise<OutboxBacklog | undefined> | undefined;
    return () => {
      if (!current) {
        current = this.readBacklog();
        // Cleared once this scrape's gauges have all asked: the next scrape reads afresh.
        void current.finally(() =>
          setImmediate(() => {
            current = undefined;
          }),
        );
      }
      return current;
    };
  }

  private async readBacklog(): Promise<OutboxBacklog | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), this.timeoutMs)));
    try {
      return await Promise.race([this.relay.backlog(), timeout]);
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}
