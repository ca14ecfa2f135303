import type { NestExpressApplication } from '@nestjs/platform-express';
import { AuthenticationFilter } from './authentication.filter.js';
import { AuthorizationFilter } from './authorization.filter.js';
import { CorsFilter } from './cors.filter.js';
import { RateLimitFilter } from './rate-limit.filter.js';

/**
 * Mounts the security filters ahead of body parsing and routing, so a refused request costs no parsing and every
 * path (also an unknown one) is judged alike: CORS (a browser's preflight carries no token), authentication, then the rate limit (after authentication, so a
 * client with a token is counted by its subject wherever it connects from; before authorization, so requests
 * without a token are counted too, by address), then authorization. With nothing switched on, nothing is mounted
 * and requests pass exactly as before.
 */
export function applySecurity(app: NestExpressApplication): void {
  const authentication = app.get(AuthenticationFilter);
  const rateLimit = app.get(RateLimitFilter);
  const cors = app.get(CorsFilter);
  if (cors.enabled) app.use(cors.handle);
  if (authentication.enabled) app.use(authentication.handle);
  if (rateLimit.enabled) app.use(rateLimit.handle);
  if (authentication.enabled) app.use(app.get(AuthorizationFilter).handle);
}
