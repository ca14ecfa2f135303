import { Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { isEndpointExposed } from '../config/management-config.js';
import { ConnectionsMetrics } from './metrics/connections.metrics.js';
import { HttpServerRequestsRecorder } from './metrics/http-server-requests.recorder.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { HTTP_SERVER_REQUESTS } from './metrics/http-server-requests.provider.js';
import { activeTracing } from './tracing/trace-context.js';

/** Metrics (served by the actuator at /actuator/prometheus) and, when turned on, tracing; see docs/observability.md. */
@Module({
  imports: [MetricsModule],
  providers: [ConnectionsMetrics, HTTP_SERVER_REQUESTS],
})
export class ObservabilityModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly recorder: HttpServerRequestsRecorder,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  /**
   * The recorder listens ahead of Express, so every request is timed, whatever answers it. Only while
   * /actuator/prometheus is exposed: series nobody can read would cost every request for nothing.
   */
  onApplicationBootstrap(): void {
    if (!isEndpointExposed(this.config.get('management.exposure', { infer: true }), 'prometheus')) return;
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    server?.prependListener('request', this.recorder.onRequest);
  }

  /** Spans still buffered go out before the process ends. */
  async onApplicationShutdown(): Promise<void> {
    await activeTracing()?.shutdown();
  }
}
