import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { SLA_METRICS } from './sla-policy.js';
import { MetricsRegistry } from '../observability/metrics/metrics.registry.js';
import { Counter, Gauge } from '../observability/metrics/prom-client.js';
import { SlaRepository } from './sla.repository.js';

/**
 * SLA clocks as Prometheus sees them, registered only when SLA is on. Breaches are counted by the replica that
 * sent each (sum() over replicas is the total); running clocks are counted in the database at scrape time, the
 * same on every replica (max(), not sum()).
 */
@Injectable()
export class SlaMetrics {
  private readonly breaches?: Counter<'metric' | 'priority'>;

  constructor(repository: SlaRepository, metrics: MetricsRegistry, config: ConfigService<AppConfig, true>) {
    if (!config.get('sla.enabled', { infer: true })) return;
    const registers = [metrics.registry];
    this.breaches = new Counter({
      name: 'tickets_sla_breaches_total',
      help: 'SLA breaches this replica sent as SLA_BREACHED events, by metric and the priority at the breach',
      labelNames: ['metric', 'priority'],
      registers,
    });
    new Gauge({
      name: 'tickets_sla_running',
      help: 'SLA clocks running now (not paused or completed), by metric; NaN when the database cannot say',
      labelNames: ['metric'],
      registers,
      async collect() {
        const counts = await repository.runningCounts().catch(() => undefined);
        for (const metric of SLA_METRICS) this.set({ metric }, counts ? (counts.find((c) => c.metric === metric)?.running ?? 0) : NaN);
      },
    });
  }

  breached(metric: string, priority: string): void {
    this.breaches?.inc({ metric, priority });
  }
}
