import { type EnvReader, relaxedEnum } from './env-reader.js';

/** Spring's `management.endpoint.health.show-details` / `show-components` values. */
const SHOW_DETAILS = ['always', 'when-authorized', 'never'] as const;
export type ShowDetails = (typeof SHOW_DETAILS)[number];

export interface ManagementConfig {
  probesEnabled: boolean;
  readinessInclude: string[];
  exposure: string[];
  diskSpaceThreshold: number;
  healthTimeoutMs: number;
  /** `/actuator/info` app fields; unset ones come from package.json. */
  info: { name?: string; description?: string; version?: string };
  /** Who sees health components and their details (Spring's `show-components` / `show-details`). */
  health: { showDetails: ShowDetails; showComponents: ShowDetails };
  metrics: MetricsConfig;
  tracing: TracingConfig;
}

export interface MetricsConfig {
  /** The `application` label on every series (Spring's management.metrics.tags.application); none when unset. */
  application?: string;
  /** `le` buckets for http_server_requests_seconds, as Spring's percentiles-histogram switch. */
  httpServerRequestsHistogram: boolean;
}

export interface TracingConfig {
  enabled: boolean;
  /** OTLP over HTTP (JSON encoding), e.g. an OpenTelemetry Collector's /v1/traces. */
  endpoint: string;
  /** Share of new traces sampled, 0..1; a caller's sampled `traceparent` is always honoured (parent-based). */
  samplingProbability: number;
}

export function parseManagementConfig(read: EnvReader): ManagementConfig {
  return {
    probesEnabled: read.bool('MANAGEMENT_HEALTH_PROBES_ENABLED', read.bool('MANAGEMENT_ENDPOINT_HEALTH_PROBES_ENABLED', false)),
    readinessInclude: read.list('MANAGEMENT_ENDPOINT_HEALTH_GROUP_READINESS_INCLUDE', 'readinessState,db'),
    exposure: read.list('MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE', 'health,info'),
    diskSpaceThreshold: read.int('MANAGEMENT_HEALTH_DISKSPACE_THRESHOLD', 10_485_760),
    // A hung dependency shows as DOWN after this long instead of hanging the endpoint; keep it below the probes' timeout.
    healthTimeoutMs: read.int('MANAGEMENT_HEALTH_TIMEOUT_MS', 3_000),
    info: {
      name: read.string('INFO_APP_NAME', '') || undefined,
      description: read.string('INFO_APP_DESCRIPTION', '') || undefined,
      version: read.string('INFO_APP_VERSION', '') || undefined,
    },
    health: parseShowDetails(read),
    metrics: {
      application: read.string('MANAGEMENT_METRICS_TAGS_APPLICATION', '') || undefined,
      httpServerRequestsHistogram: read.bool('MANAGEMENT_METRICS_DISTRIBUTION_PERCENTILESHISTOGRAM_HTTP_SERVER_REQUESTS', false),
    },
    tracing: {
      enabled: read.bool('MANAGEMENT_TRACING_ENABLED', false),
      endpoint: read.httpUrl('MANAGEMENT_OTLP_TRACING_ENDPOINT', 'http://localhost:4318/v1/traces'),
      // Spring's default: one trace in ten, so tracing on does not mean exporting every request.
      samplingProbability: read.fraction('MANAGEMENT_TRACING_SAMPLING_PROBABILITY', 0.1),
    },
  };
}

function parseShowDetails(read: EnvReader): { showDetails: ShowDetails; showComponents: ShowDetails } {
  const showDetails = showSetting(read, 'MANAGEMENT_ENDPOINT_HEALTH_SHOWDETAILS', 'MANAGEMENT_ENDPOINT_HEALTH_SHOW_DETAILS', 'always');
  // As in Spring, show-components follows show-details unless it is set itself.
  const showComponents = showSetting(
    read,
    'MANAGEMENT_ENDPOINT_HEALTH_SHOWCOMPONENTS',
    'MANAGEMENT_ENDPOINT_HEALTH_SHOW_COMPONENTS',
    showDetails,
  );
  return { showDetails, showComponents };
}

function showSetting(read: EnvReader, name: string, dashed: string, fallback: ShowDetails): ShowDetails {
  const used = read.has(name) ? name : dashed;
  return relaxedEnum(read, used, read.first(used), fallback, SHOW_DETAILS);
}

/** Whether an actuator endpoint is served over HTTP, as Spring's management.endpoints.web.exposure.include says. */
export function isEndpointExposed(include: readonly string[], endpoint: string): boolean {
  return include.includes('*') || include.includes(endpoint);
}
