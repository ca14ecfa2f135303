import type { FactoryProvider } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../../config/app-config.js';
import { HttpServerRequestsRecorder } from './http-server-requests.recorder.js';
import { micrometerTimerBuckets } from './micrometer-buckets.js';
import { MetricsRegistry } from './metrics.registry.js';
import { MicrometerTimer } from './micrometer-timer.js';

/** http_server_requests_seconds in the app's registry, with buckets when the percentiles-histogram switch is on. */
export const HTTP_SERVER_REQUESTS: FactoryProvider<HttpServerRequestsRecorder> = {
  provide: HttpServerRequestsRecorder,
  inject: [MetricsRegistry, ConfigService],
  useFactory: (metrics: MetricsRegistry, config: ConfigService<AppConfig, true>) => {
    const { httpServerRequestsHistogram } = config.get('management.metrics', { infer: true });
    const timer = new MicrometerTimer(
      'http_server_requests_seconds',
      'HTTP server requests, by route template, method, status, outcome and exception',
      httpServerRequestsHistogram ? micrometerTimerBuckets() : undefined,
    );
    for (const metric of timer.metrics()) metrics.registry.registerMetric(metric as never);
    return new HttpServerRequestsRecorder(timer);
  },
};
