import type { NestExpressApplication } from '@nestjs/platform-express';
import { JSON_MEDIA_TYPES } from './common/json-content-type.guard.js';
import { RequestValidationPipe } from './common/validation/request-validation.pipe.js';

/** Everything main.ts applies to the application beyond its modules; e2e tests apply the same. */
export function setupApp(app: NestExpressApplication): NestExpressApplication {
  app.useBodyParser('json', { limit: '1mb', type: JSON_MEDIA_TYPES });
  app.useGlobalPipes(new RequestValidationPipe());
  app.disable('x-powered-by');
  app.enableShutdownHooks();
  return app;
}
