import type { ServerOptions } from 'node:http';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigService } from '@nestjs/config';
import type { RequestHandler } from 'express';
import type { AppConfig } from '../../config/app-config.js';
import { answerClientErrorsAsJson, type RefusedRequestLog } from './client-error.handler.js';
import { checkHostAndExpect } from './protocol-checks.middleware.js';
import { limitQueryParameters } from './query-limit.middleware.js';
import { securityHeaderList, setHeaders } from './security-headers.js';
import { applyServerTimeouts } from './server-timeouts.js';

/**
 * Connection timeouts and JSON answers to malformed requests on the server (each written to `logRefused`);
 * returns the middleware that sets the security headers and checks the request's framing and limits, to be
 * mounted first, so they cover error responses too.
 */
export function hardenHttp(app: NestExpressApplication, logRefused: RefusedRequestLog): RequestHandler[] {
  const server = app.getHttpServer();
  applyServerTimeouts(server, app.get(ConfigService<AppConfig, true>).get('server', { infer: true }));
  const headers = securityHeaderList();
  answerClientErrorsAsJson(server, headers, logRefused);
  // Node's createServer option, read per request: checkHostAndExpect answers a missing Host instead.
  Object.assign(server, { requireHostHeader: false } satisfies ServerOptions);
  // Handling this event stops Node's bare 417: the request goes on like any other, to checkHostAndExpect.
  server.on('checkExpectation', (req, res) => server.emit('request', req, res));
  return [setHeaders(headers), checkHostAndExpect, limitQueryParameters];
}
