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
    url: string;
    exchange: string;
    exchangeType: string;
    queue: string;
    routingKey: string;
  };
  management: {
    probesEnabled: boolean;
    readinessInclude: string[];
    exposure: string[];
    diskSpaceThreshold: number;
    healthTimeoutMs: number;
    /** `/actuator/info` app fields; unset ones come from package.json. */
    info: { name?: string; description?: string; version?: string };
  };
  log: {
    level: LogLevel;
    format: LogFormat;
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** `json`: one JSON object per line, for log platforms; `pretty`: human-readable, for development. */
const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

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
      url: read.amqpUrl('RABBITMQ_URL', 'amqp://guest:guest@127.0.0.1:5672'),
      exchange: read.string('RABBITMQ_EXCHANGE', 'ticket.exchange'),
      exchangeType: read.oneOf('RABBITMQ_EXCHANGE_TYPE', 'topic', ['topic', 'direct', 'fanout', 'headers']),
      queue: read.string('RABBITMQ_QUEUE', 'ticket.queue'),
      routingKey: read.string('RABBITMQ_ROUTING_KEY', 'ticket.routing.key', true),
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
    },
    log: {
      level: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
      format: read.oneOf('LOG_FORMAT', 'json', LOG_FORMATS),
    },
  };
}

class EnvReader {
  constructor(private readonly env: Env) {}

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

  identifier(name: string, fallback: string): string {
    const value = this.string(name, fallback);
    // The database name is interpolated into CREATE DATABASE, so only plain identifiers are allowed.
    if (!/^[A-Za-z0-9_$]{1,64}$/.test(value)) {
      throw new ConfigError(`${name} must be 1-64 letters, digits, "_" or "$", got "${value}"`);
    }
    return value;
  }

  amqpUrl(name: string, fallback: string): string {
    const value = this.string(name, fallback);
    if (!/^amqps?:\/\/[^\s]+$/.test(value)) throw new ConfigError(`${name} must be an amqp:// or amqps:// URL`);
    return value;
  }

  list(name: string, fallback: string): string[] {
    return this.string(name, fallback)
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
  }
}
