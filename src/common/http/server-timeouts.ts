import type { Server } from 'node:http';
import type { AppConfig } from '../../config/app-config.js';

/** How often Node looks for connections past their headers or request timeout (its default is 30 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/**
 * Bounds how long a client may hold a connection: slow headers (slowloris), slow bodies and idle keep-alive
 * connections are closed. Must run before listen(): Node reads the checking interval when it starts listening.
 */
export function applyServerTimeouts(server: Server, limits: AppConfig['server']): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // A public Server property since Node 18.8 that @types/node 20 does not declare.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = TIMEOUT_CHECK_INTERVAL_MS;
}
