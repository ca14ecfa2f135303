import type { EnvReader } from './env-reader.js';

export interface ServerConfig {
  port: number;
  shutdownTimeoutMs: number;
  shutdownDelayMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

export function parseServerConfig(read: EnvReader): ServerConfig {
  return {
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
  };
}
