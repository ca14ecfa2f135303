import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * Helmet's security headers on every response. The content security policy is Helmet's default narrowed to
 * what the service serves: Swagger UI loads its scripts and styles from this origin, uses inline styles and
 * data: images, and calls the API on this origin. `upgrade-insecure-requests` is dropped because the service
 * is often reached over plain HTTP inside a network, where it would make browsers fetch Swagger UI's assets
 * over HTTPS and fail.
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'self'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
  });
}
