import { ConfigService } from '@nestjs/config';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { RequestHandler } from 'express';
import type { AppConfig } from '../config/app-config.js';
import { AuthenticationMiddleware } from './middleware/authentication.middleware.js';
import { AuthorizationMiddleware } from './middleware/authorization.middleware.js';
import { CorsMiddleware } from './middleware/cors.middleware.js';
import { RateLimitMiddleware } from './middleware/rate-limit.middleware.js';

/**
 * The security middleware (Spring Security's filter chain, as Express middleware), to be mounted ahead of body parsing
 * and routing, so a refused request costs no parsing and every path (also an unknown one) is judged alike. In order: authentication identifies the client; the rate limit counts
 * every request (by the token's subject, wherever the client connects from, else by address), before anything can
 * refuse it, so refused tokens, CORS refusals and preflights are counted too; CORS (a browser's preflight carries no
 * token) answers preflights and refuses other origins; the rate limit answers 429 past the limit; authentication
 * answers 401 for a refused token; authorization. With nothing switched on, nothing is mounted and requests pass
 * exactly as before.
 */
export function securityMiddleware(app: NestExpressApplication): RequestHandler[] {
  trustForwardedHeaders(app);
  const authentication = app.get(AuthenticationMiddleware);
  const rateLimit = app.get(RateLimitMiddleware);
  const cors = app.get(CorsMiddleware);
  const middleware: RequestHandler[] = [];
  if (authentication.enabled) middleware.push(authentication.identify);
  if (rateLimit.enabled) middleware.push(rateLimit.count);
  if (cors.enabled) middleware.push(cors.handle);
  if (rateLimit.enabled) middleware.push(rateLimit.enforce);
  if (authentication.enabled) middleware.push(authentication.refuse, app.get(AuthorizationMiddleware).handle);
  return middleware;
}

/**
 * SERVER_FORWARD_HEADERS_STRATEGY=native (or framework): a peer that is an internal proxy (loopback, private,
 * link-local or carrier-grade NAT addresses, as Tomcat's RemoteIpValve trusts by default) may report the client's
 * address, scheme and host (X-Forwarded-For, -Proto, -Host). Express reads them for `request.ip`, `.protocol` and
 * `.host`, which the rate limit, CORS and the actuator links use. With `none`, the default, they are ignored.
 */
function trustForwardedHeaders(app: NestExpressApplication): void {
  const strategy = app.get(ConfigService<AppConfig, true>).get('security', { infer: true }).forwardHeadersStrategy;
  if (strategy !== 'none') app.set('trust proxy', ['loopback', 'linklocal', 'uniquelocal', '100.64.0.0/10']);
}
