import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigService } from '@nestjs/config';
import type { RequestHandler } from 'express';
import type { AppConfig } from '../../config/app-config.js';
import { answerClientErrorsAsJson } from './client-error.handler.js';
import { limitQueryParameters } from './query-limit.middleware.js';
import { securityHeaders } from './security-headers.js';
import { applyServerTimeouts } from './server-timeouts.js';

/**
 * Connection timeouts and JSON answers to malformed requests on the server; returns the middleware that sets the
 * security headers and the request limits, to be mounted first, so they cover error responses too.
 */
export function hardenHttp(app: NestExpressApplication): RequestHandler[] {
  const server = app.getHttpServer();
  applyServerTimeouts(server, app.get(ConfigService<AppConfig, true>).get('server', { infer: true }));
  answerClientErrorsAsJson(server);
  return [securityHeaders(), limitQueryParameters];
}
