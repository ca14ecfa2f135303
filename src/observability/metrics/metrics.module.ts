import { Global, Module } from '@nestjs/common';
import { MetricsRegistry } from './metrics.registry.js';

/**
 * The application's metrics registry for every module that records series (the outbox, the pool, HTTP requests) and
 * for the actuator's /actuator/prometheus, which reads it: global, so that no feature depends on the observability
 * module for it.
 */
@Global()
@Module({
  providers: [MetricsRegistry],
  exports: [MetricsRegistry],
})
export class MetricsModule {}
