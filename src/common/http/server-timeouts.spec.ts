import { createServer } from 'node:http';
import { parseConfig } from '../../config/app-config.js';
import { applyServerTimeouts } from './server-timeouts.js';

describe('server timeouts', () => {
  it('default to 10 s for headers, 30 s for the whole request and 5 s for idle keep-alive', () => {
    expect(parseConfig({}).server).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 });
  });

  it('are read from SERVER_HEADERS_TIMEOUT_MS, SERVER_REQUEST_TIMEOUT_MS and SERVER_KEEP_ALIVE_TIMEOUT_MS', () => {
    const env = { SERVER_HEADERS_TIMEOUT_MS: '1000', SERVER_REQUEST_TIMEOUT_MS: '2000', SERVER_KEEP_ALIVE_TIMEOUT_MS: '3000' };
    expect(parseConfig(env).server).toMatchObject({ headersTimeoutMs: 1000, requestTimeoutMs: 2000, keepAliveTimeoutMs: 3000 });
  });

  it('are applied to the HTTP server, checked every second rather than every 30 s', () => {
    const server = createServer();
    applyServerTimeouts(server, parseConfig({ SERVER_HEADERS_TIMEOUT_MS: '1000', SERVER_REQUEST_TIMEOUT_MS: '2000' }).server);
    expect(server).toMatchObject({ headersTimeout: 1000, requestTimeout: 2000, keepAliveTimeout: 5000, connectionsCheckingInterval: 1000 });
  });
});
