import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

/*
 * prom-client's classes, loaded module by module rather than through its index. The index also loads its default
 * metrics, and one of them (process CPU, for exemplars) loads @opentelemetry/api: with tracing off no OpenTelemetry
 * module may be loaded. prom-client 15 has no "exports" map, so these files are reachable; the lockfile pins the
 * version, and the tracing e2e spec (which records every module a service process loads) fails if this leaks.
 */
const require = createRequire(import.meta.url);

export const Registry: typeof PromClient.Registry = require('prom-client/lib/registry');
export type Registry = PromClient.Registry;
export const Counter: typeof PromClient.Counter = require('prom-client/lib/counter');
export type Counter<T extends string = string> = PromClient.Counter<T>;
export const Gauge: typeof PromClient.Gauge = require('prom-client/lib/gauge');
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
export const Histogram: typeof PromClient.Histogram = require('prom-client/lib/histogram');
export type Histogram<T extends string = string> = PromClient.Histogram<T>;

/** prom-client's default Node.js metrics but process CPU (see process.metrics.ts), under their usual names. */
const NODE_METRICS = [
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  ...(typeof (process as { getActiveResourcesInfo?: unknown }).getActiveResourcesInfo === 'function' ? ['processResources'] : []),
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
  'gc',
];

/**
 * Gauges prom-client names like counters, which the Prometheus naming rules (and promtool) keep `_total` for. Each
 * is the sum of its per-type gauge: `sum without (type) (nodejs_active_handles)`.
 */
const GAUGES_NAMED_LIKE_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export function collectNodeMetrics(registry: Registry): void {
  for (const name of NODE_METRICS) {
    const collect = require(`prom-client/lib/metrics/${name}`) as (registry: Registry, config: object) => void;
    collect(registry, { eventLoopMonitoringPrecision: 10 });
  }
  for (const name of GAUGES_NAMED_LIKE_COUNTERS) registry.removeSingleMetric(name);
}
