import type { NestExpressApplication } from '@nestjs/platform-express';
import { AuthenticationFilter } from './authentication.filter.js';
import { AuthorizationFilter } from './authorization.filter.js';

/**
 * Mounts the security filters in Spring Security's order, ahead of body parsing and routing, so a refused request
 * costs no parsing and every path (also an unknown one) is judged alike. With nothing switched on, nothing is
 * mounted and requests pass exactly as before.
 */
export function applySecurity(app: NestExpressApplication): void {
  const authentication = app.get(AuthenticationFilter);
  if (authentication.enabled) {
    app.use(authentication.handle);
    app.use(app.get(AuthorizationFilter).handle);
  }
}
