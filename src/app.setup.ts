import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { hardenHttp } from './common/http/http-hardening.js';
import { checkJsonBody } from './common/http/json-body-limits.js';
import { REQUEST_LIMITS } from './common/http/request-limits.js';
import { JSON_MEDIA_TYPES } from './common/json-content-type.guard.js';
import { RequestValidationPipe } from './common/validation/request-validation.pipe.js';
import { serveAsyncApi } from './docs/asyncapi.setup.js';
import { setupOpenApi } from './docs/openapi.setup.js';
import { ROOT_LOGGER } from './logging/logging.module.js';
import { requestLog } from './logging/request-log.js';
import { applySecurity } from './security/security.setup.js';

/** Everything main.ts applies to the application beyond its modules; e2e tests apply the same. */
export function setupApp(app: NestExpressApplication): NestExpressApplication {
  // First of all middleware: every request gets its id and its log line, also one the body parser rejects.
  app.use(requestLog(app.get(ROOT_LOGGER)));
  app.useLogger(app.get(Logger));
  hardenHttp(app);
  // Before the body parser: a request refused at the door is never parsed.
  applySecurity(app);
  app.useBodyParser('json', { limit: REQUEST_LIMITS.bodyBytes, type: JSON_MEDIA_TYPES });
  app.use(checkJsonBody);
  app.useGlobalPipes(new RequestValidationPipe());
  app.disable('x-powered-by');
  // process.exit(0) once closed: a graceful stop on SIGTERM/SIGINT is a success, not a death by signal (143).
  app.enableShutdownHooks([], { useProcessExit: true });
  setupOpenApi(app);
  serveAsyncApi(app);
  return app;
}
