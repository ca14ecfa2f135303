import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { ATTACHMENT_UPLOAD_PATH } from './attachments/attachment-upload.js';
import { answerIfNoneMatchAsOrigin } from './common/http/conditional-get.js';
import { hardenHttp } from './common/http/http-hardening.js';
import { jsonBody } from './common/http/json-body-limits.js';
import { inOneLayer } from './common/http/one-layer.js';
import { REQUEST_LIMITS } from './common/http/request-limits.js';
import { JSON_MEDIA_TYPES } from './common/json-content-type.guard.js';
import { RequestValidationPipe } from './common/validation/request-validation.pipe.js';
import { serveAsyncApi } from './docs/asyncapi.setup.js';
import { DocsRoutes } from './docs/docs-routes.js';
import { setupOpenApi } from './docs/openapi.setup.js';
import { LOG_DESTINATION, ROOT_LOGGER } from './logging/logging.module.js';
import { refusedRequestLog, requestLog } from './logging/request-log.js';
import { securityMiddleware } from './security/security.setup.js';

/** Everything main.ts applies to the application beyond its modules; e2e tests apply the same. */
export function setupApp(app: NestExpressApplication): NestExpressApplication {
  app.useLogger(app.get(Logger));
  const [rootLogger, logDestination] = [app.get(ROOT_LOGGER), app.get(LOG_DESTINATION)];
  // The middleware of every request, in this order, as one layer: first of all, its id and its log line (also
  // for one refused further on); the security headers and limits; the security middleware, before the body parser,
  // so that a request refused at the door is never parsed; the body (but an upload's, which its route streams).
  app.use(
    inOneLayer(
      requestLog(rootLogger, logDestination),
      ...hardenHttp(app, refusedRequestLog(rootLogger, logDestination)),
      ...securityMiddleware(app),
      jsonBody({ limit: REQUEST_LIMITS.bodyBytes, type: JSON_MEDIA_TYPES, except: ATTACHMENT_UPLOAD_PATH }),
    ),
  );
  app.useGlobalPipes(new RequestValidationPipe());
  app.disable('x-powered-by');
  // No weak ETag hashed over every body (a list of 10,000 tickets is megabytes): the ETag of a ticket is its own
  // (see withEtag), and Express still answers If-None-Match with 304 against it.
  app.set('etag', false);
  answerIfNoneMatchAsOrigin(app);
  // process.exit(0) once closed: a graceful stop on SIGTERM/SIGINT is a success, not a death by signal (143).
  app.enableShutdownHooks([], { useProcessExit: true });
  app.get(DocsRoutes).mountAfterApi(() => {
    setupOpenApi(app);
    serveAsyncApi(app);
  });
  return app;
}
