import { parseRedisConfig, parseSecurityConfig, parseShowDetails, type RedisConfig, type SecurityConfig, type ShowDetails } from './security-config.js';

export interface AppConfig {
  server: {
    port: number;
    shutdownTimeoutMs: number;
    shutdownDelayMs: number;
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
  };
  db: {
    host: string;
    port: number;
    username: string;
    password: string;
    database: string;
    queryTimeoutMs: number;
  };
  rabbitmq: {
    /** Brokers tried in turn (one per cluster node); a connection that is lost is made again to the next one. */
    urls: string[];
    exchange: string;
    exchangeType: string;
    queue: string;
    routingKey: string;
    queueType: QueueType;
    /** Optional queue arguments (x-max-length, x-message-ttl, x-dead-letter-exchange), as declared. */
    queueArguments: Record<string, string | number>;
  };
  outbox: {
    /** Fixed per deployment: a ticket's events share the partition `ticketId mod partitions`. */
    partitions: number;
    leaseTtlMs: number;
  };
  idempotency: {
    /** How long a key (and the response it replays) is kept before the background purge removes it. */
    ttlHours: number;
  };
  tickets: {
    /** `open`: any status may follow any other (the original's behaviour); `strict`: only the moves of the spec's table. */
    workflow: TicketWorkflow;
  };
  management: {
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
  };
  security: SecurityConfig;
  redis: RedisConfig;
  log: {
    level: LogLevel;
    format: LogFormat;
  };
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

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** `json`: one JSON object per line, for log platforms; `pretty`: human-readable, for development. */
const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const TICKET_WORKFLOWS = ['open', 'strict'] as const;
export type TicketWorkflow = (typeof TICKET_WORKFLOWS)[number];

const QUEUE_TYPES = ['classic', 'quorum'] as const;
export type QueueType = (typeof QUEUE_TYPES)[number];

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

/** Reads and validates the environment; throws a ConfigError naming the variable at fault. */
export function parseConfig(env: Env): AppConfig {
  const read = new EnvReader(env);
  return {
    server: {
      // 0 lets the operating system pick a free port.
      port: read.port('SERVER_PORT', read.port('PORT', 8080, 0), 0),
      shutdownTimeoutMs: read.int('SERVER_SHUTDOWN_TIMEOUT_MS', 10_000),
      // Time for a load balancer to see readiness fail and stop routing here before the port closes.
      shutdownDelayMs: read.int('SERVER_SHUTDOWN_DELAY_MS', 0),
      // Slow clients must not pin connections: headers within 10 s, the whole request within 30 s.
      headersTimeoutMs: read.int('SERVER_HEADERS_TIMEOUT_MS', 10_000),
      requestTimeoutMs: read.int('SERVER_REQUEST_TIMEOUT_MS', 30_000),
      // Keep above the idle timeout of any load balancer in front, or it may reuse a closed connection.
      keepAliveTimeoutMs: read.int('SERVER_KEEP_ALIVE_TIMEOUT_MS', 5_000),
    },
    db: {
      host: read.string('DB_HOST', '127.0.0.1'),
      port: read.port('DB_PORT', 3306),
      username: read.string('DB_USERNAME', 'root'),
      password: read.string('DB_PASSWORD', '', true),
      database: read.identifier('DB_DATABASE', 'tickets'),
      queryTimeoutMs: read.int('DB_QUERY_TIMEOUT_MS', 5_000),
    },
    rabbitmq: {
      urls: brokerUrls(read),
      exchange: read.string('RABBITMQ_EXCHANGE', 'ticket.exchange'),
      exchangeType: read.oneOf('RABBITMQ_EXCHANGE_TYPE', 'topic', ['topic', 'direct', 'fanout', 'headers']),
      queue: read.string('RABBITMQ_QUEUE', 'ticket.queue'),
      routingKey: read.string('RABBITMQ_ROUTING_KEY', 'ticket.routing.key', true),
      queueType: read.oneOf('RABBITMQ_QUEUE_TYPE', 'classic', QUEUE_TYPES),
      queueArguments: queueArguments(read),
    },
    outbox: {
      partitions: read.intBetween('OUTBOX_PARTITIONS', 8, 1, 1024),
      // A replica that stops renewing (crashed, paused, cut off) loses its partitions after this long.
      leaseTtlMs: read.intBetween('OUTBOX_LEASE_TTL_MS', 10_000, 500, 600_000),
    },
    idempotency: {
      ttlHours: read.intBetween('IDEMPOTENCY_TTL_HOURS', 24, 1, 8760),
    },
    tickets: {
      workflow: read.oneOf('TICKET_WORKFLOW', 'open', TICKET_WORKFLOWS),
    },
    management: {
      probesEnabled: read.bool(
        'MANAGEMENT_HEALTH_PROBES_ENABLED',
        read.bool('MANAGEMENT_ENDPOINT_HEALTH_PROBES_ENABLED', false),
      ),
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
    },
    security: parseSecurityConfig(read),
    redis: parseRedisConfig(read),
    log: {
      level: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
      format: read.oneOf('LOG_FORMAT', 'json', LOG_FORMATS),
    },
  };
}

/**
 * `SPRING_RABBITMQ_ADDRESSES` (or `RABBITMQ_ADDRESSES`): comma-separated `host:port` or AMQP URLs. Plain
 * `host:port` entries take user, password and virtual host from `SPRING_RABBITMQ_USERNAME`, `…_PASSWORD`,
 * `…_VIRTUAL_HOST`, or else from `RABBITMQ_URL`. Without addresses, `RABBITMQ_URL` is the one broker.
 */
function brokerUrls(read: EnvReader): string[] {
  const url = read.amqpUrl('RABBITMQ_URL', 'amqp://guest:guest@127.0.0.1:5672');
  const name = read.has('SPRING_RABBITMQ_ADDRESSES') ? 'SPRING_RABBITMQ_ADDRESSES' : 'RABBITMQ_ADDRESSES';
  const addresses = read.list(name, '');
  if (addresses.length === 0) return [url];
  const base = new URL(url);
  const user = read.string('SPRING_RABBITMQ_USERNAME', decodeURIComponent(base.username) || 'guest');
  const password = read.string('SPRING_RABBITMQ_PASSWORD', decodeURIComponent(base.password) || 'guest', true);
  const vhost = read.string('SPRING_RABBITMQ_VIRTUAL_HOST', decodeURIComponent(base.pathname.slice(1)) || '/');
  return addresses.map((address) => {
    if (/^amqps?:\/\//.test(address)) return read.validAmqpUrl(name, address);
    if (!/^[^\s:/@]+:\d{1,5}$/.test(address)) throw new ConfigError(`${name} must list host:port or amqp:// URLs, got "${address}"`);
    const vhostPath = vhost === '/' ? '' : `/${encodeURIComponent(vhost)}`;
    return `amqp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${address}${vhostPath}`;
  });
}

function queueArguments(read: EnvReader): Record<string, string | number> {
  const args: Record<string, string | number> = {};
  if (read.has('RABBITMQ_QUEUE_MAX_LENGTH')) args['x-max-length'] = read.int('RABBITMQ_QUEUE_MAX_LENGTH', 0);
  if (read.has('RABBITMQ_QUEUE_MESSAGE_TTL_MS')) args['x-message-ttl'] = read.int('RABBITMQ_QUEUE_MESSAGE_TTL_MS', 0);
  if (read.has('RABBITMQ_QUEUE_DEAD_LETTER_EXCHANGE')) {
    args['x-dead-letter-exchange'] = read.string('RABBITMQ_QUEUE_DEAD_LETTER_EXCHANGE', '', true);
  }
  return args;
}

/** Typed, validated reads of the environment; every failure is a ConfigError naming the variable. */
export class EnvReader {
  constructor(private readonly env: Env) {}

  /** The value of the first of `names` that is set (Spring's spelling and its dashed variant), or undefined. */
  first(...names: string[]): string | undefined {
    const name = names.find((candidate) => this.has(candidate));
    return name === undefined ? undefined : this.env[name];
  }

  invalid(name: string, problem: string): ConfigError {
    return new ConfigError(`${name} ${problem}`);
  }

  has(name: string): boolean {
    return (this.env[name] ?? '') !== '';
  }

  string(name: string, fallback: string, allowEmpty = false): string {
    const value = this.env[name];
    if (value === undefined || (value === '' && !allowEmpty)) return fallback;
    return value;
  }

  int(name: string, fallback: number): number {
    const raw = this.string(name, String(fallback)).trim();
    if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
    return Number(raw);
  }

  intBetween(name: string, fallback: number, min: number, max: number): number {
    const value = this.int(name, fallback);
    if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
    return value;
  }

  port(name: string, fallback: number, min = 1): number {
    const port = this.int(name, fallback);
    if (port < min || port > 65535) throw new ConfigError(`${name} must be a port between ${min} and 65535, got ${port}`);
    return port;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.string(name, String(fallback)).trim().toLowerCase();
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw new ConfigError(`${name} must be "true" or "false", got "${raw}"`);
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.string(name, fallback) as T;
    if (!allowed.includes(value)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
    return value;
  }

  /** A number from 0 to 1, e.g. a sampling probability. */
  fraction(name: string, fallback: number): number {
    const raw = this.string(name, String(fallback)).trim();
    const value = /^\d*\.?\d+$/.test(raw) ? Number(raw) : NaN;
    if (!(value >= 0 && value <= 1)) throw new ConfigError(`${name} must be a number from 0 to 1, got "${raw}"`);
    return value;
  }

  httpUrl(name: string, fallback: string): string {
    const value = this.string(name, fallback).trim();
    if (!/^https?:\/\/[^\s]+$/.test(value) || !URL.canParse(value)) throw new ConfigError(`${name} must be an http:// or https:// URL, got "${value}"`);
    return value;
  }

  identifier(name: string, fallback: string): string {
    const value = this.string(name, fallback);
    // The database name is interpolated into CREATE DATABASE, so only plain identifiers are allowed.
    if (!/^[A-Za-z0-9_$]{1,64}$/.test(value)) {
      throw new ConfigError(`${name} must be 1-64 letters, digits, "_" or "$", got "${value}"`);
    }
    return value;
  }

  amqpUrl(name: string, fallback: string): string {
    return this.validAmqpUrl(name, this.string(name, fallback));
  }

  validAmqpUrl(name: string, value: string): string {
    if (!/^amqps?:\/\/[^\s]+$/.test(value) || !URL.canParse(value)) throw new ConfigError(`${name} must be an amqp:// or amqps:// URL`);
    return value;
  }

  list(name: string, fallback: string): string[] {
    return this.string(name, fallback)
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
  }
}
