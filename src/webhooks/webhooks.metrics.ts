import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '../observability/metrics/metrics.registry.js';
import { Counter, Gauge, Histogram } from '../observability/metrics/prom-client.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';

/** The outcome of an attempt, as `webhooks_deliveries_total` counts it. */
export type AttemptOutcome = 'succeeded' | 'retrying' | 'failed' | 'lease_lost' | 'endpoint_deleted';

/** Lag boundaries in seconds, from a few milliseconds to the end of the default retry schedule (about three days). */
const LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86400, 259200];

/**
 * Webhooks as Prometheus sees them. Attempts and lag are this replica's own (sum them); `webhooks_pending` and
 * `webhooks_changes_behind` are read from the database at scrape time and are the same on every replica (take max()).
 */
@Injectable()
export class WebhooksMetrics {
  private readonly attempts: Counter<'outcome'>;
  private readonly lag: Histogram;

  constructor(metrics: MetricsRegistry, deliveries: WebhookDeliveriesRepository) {
    const registers = [metrics.registry];
    this.attempts = new Counter({
      name: 'webhooks_deliveries_total',
      help: 'Webhook delivery attempts by outcome: succeeded, retrying (failed, another attempt scheduled), failed (no attempt left, or 410), lease_lost (outcome not recorded: another replica took the delivery over), endpoint_deleted (the endpoint was deleted during the attempt)',
      labelNames: ['outcome'],
      registers,
    });
    this.lag = new Histogram({
      name: 'webhooks_delivery_lag_seconds',
      help: 'From the change (the event occurredAt) to its successful delivery, retries included',
      buckets: LAG_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'webhooks_pending',
      help: 'Deliveries waiting to be attempted or retried, over all endpoints; NaN when the database cannot say',
      registers,
      async collect() {
        this.set(await deliveries.pendingCount().catch(() => NaN));
      },
    });
    new Gauge({
      name: 'webhooks_changes_behind',
      help: 'Numbered changes of the change log that the enabled endpoint furthest behind has not had its deliveries made of yet (of every kind, also those it does not subscribe to); NaN when the database cannot say',
      registers,
      async collect() {
        this.set(await deliveries.changesBehind().catch(() => NaN));
      },
    });
  }

  attempted(outcome: AttemptOutcome, occurredAt: Date, now = Date.now()): void {
    this.attempts.inc({ outcome });
    if (outcome === 'succeeded') this.lag.observe(Math.max(0, (now - occurredAt.getTime()) / 1000));
  }
}
