import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../../config/app-config.js';
import { openMetricsText } from './open-metrics.js';
import { registerProcessMetrics } from './process.metrics.js';
import { collectNodeMetrics, Registry } from './prom-client.js';

export const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';
export const OPENMETRICS_TEXT = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

/**
 * The application's own prom-client registry, never the global one: two application instances in one process
 * (as the tests run them) each keep their own series. Every series carries `application` when configured.
 */
@Injectable()
export class MetricsRegistry {
  readonly registry = new Registry();

  constructor(config: ConfigService<AppConfig, true>) {
    const { application } = config.get('management.metrics', { infer: true });
    if (application) this.registry.setDefaultLabels({ application });
    collectNodeMetrics(this.registry);
    registerProcessMetrics(this.registry);
  }

  async scrape(openMetrics: boolean): Promise<{ contentType: string; body: string }> {
    if (openMetrics) return { contentType: OPENMETRICS_TEXT, body: openMetricsText(await this.registry.getMetricsAsJSON()) };
    return { contentType: PROMETHEUS_TEXT, body: await this.registry.metrics() };
  }
}
