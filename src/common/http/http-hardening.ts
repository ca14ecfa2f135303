import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../../config/app-config.js';
import { answerClientErrorsAsJson } from './client-error.handler.js';
import { limitQueryParameters } from './query-limit.middleware.js';
import { securityHeaders } from './security-headers.js';
import { applyServerTimeouts } from './server-timeouts.js';

/** Security headers, request limits and connection timeouts; applied first, so they cover error responses too. */
export function hardenHttp(app: NestExpressApplication): void {
  app.use(securityHeaders());
  app.use(limitQueryParameters);
  const server = app.getHttpServer();
  applyServerTimeouts(server, app.get(ConfigService<AppConfig, true>).get('server', { infer: true }));
  answerClientErrorsAsJson(server);
}
