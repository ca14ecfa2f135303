import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * Helmet's security headers, for every response. The content security policy is Helmet's default narrowed to
 * what the service serves: Swagger UI loads its scripts and styles from this origin, uses inline styles and
 * data: images, and calls the API on this origin. `upgrade-insecure-requests` is dropped because the service
 * is often reached over plain HTTP inside a network, where it would make browsers fetch Swagger UI's assets
 * over HTTPS and fail.
 * The headers do not depend on the request: Helmet runs once, at start-up, and each response gets what it set.
 */
export function securityHeaderList(): Array<[string, string]> {
  return headersSetBy(
    helmet({
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
    }),
  );
}

export function setHeaders(headers: Array<[string, string]>): RequestHandler {
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

/** The headers a middleware sets on a response (what it removes is never there: Express sends no X-Powered-By here). */
function headersSetBy(middleware: RequestHandler): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  const recorder = { setHeader: (name: string, value: string) => headers.push([name, value]), removeHeader: () => undefined };
  middleware({} as Request, recorder as unknown as Response, () => undefined);
  return headers;
}
