import { ForbiddenException, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NextFunction, Request, Response } from 'express';
import type { AppConfig } from '../../config/app-config.js';
import type { CorsConfig } from '../../config/security-config.js';

/**
 * Cross-origin requests as Spring's CorsFilter (DefaultCorsProcessor) answers them, ahead of authentication, since
 * a browser's preflight carries no token. A preflight (`OPTIONS` with `Access-Control-Request-Method`) from an
 * allowed origin is answered here, 204 with the allowed method and headers; an actual request from one gets
 * `Access-Control-Allow-Origin` and the exposed headers. A cross-origin request from another origin, or a
 * preflight asking for a method or header not allowed, is refused 403 "Invalid CORS request". Requests without
 * `Origin`, or from the service's own origin (Swagger UI), are not CORS requests and pass untouched.
 */
@Injectable()
export class CorsMiddleware {
  private readonly cors?: CorsConfig;

  constructor(config: ConfigService<AppConfig, true>) {
    this.cors = config.get('security', { infer: true }).cors;
  }

  get enabled(): boolean {
    return this.cors !== undefined;
  }

  readonly handle = (request: Request, response: Response, next: NextFunction): void => {
    const origin = request.headers.origin;
    // Scheme and host as the client used them (behind a trusted proxy, from X-Forwarded-Proto and -Host).
    if (origin === undefined || origin === `${request.protocol}://${request.host}`) return next();
    const cors = this.cors!;
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    response.vary('Origin');
    if (preflight) response.vary('Access-Control-Request-Method').vary('Access-Control-Request-Headers');
    const anyOrigin = cors.allowedOrigins.includes('*');
    if (!anyOrigin && !cors.allowedOrigins.includes(origin)) return next(invalid());
    response.setHeader('Access-Control-Allow-Origin', anyOrigin ? '*' : origin);
    if (!preflight) {
      if (cors.exposedHeaders.length > 0) response.setHeader('Access-Control-Expose-Headers', cors.exposedHeaders.join(', '));
      return next();
    }
    const method = String(request.headers['access-control-request-method']).toUpperCase();
    const headers = requestedHeaders(request.headers['access-control-request-headers']);
    const anyHeader = cors.allowedHeaders.includes('*');
    const allowedHeaders = new Set(cors.allowedHeaders.map((header) => header.toLowerCase()));
    if (!cors.allowedMethods.includes(method) || !(anyHeader || headers.every((header) => allowedHeaders.has(header.toLowerCase())))) {
      response.removeHeader('Access-Control-Allow-Origin');
      return next(invalid());
    }
    response.setHeader('Access-Control-Allow-Methods', cors.allowedMethods.join(','));
    if (headers.length > 0) response.setHeader('Access-Control-Allow-Headers', headers.join(', '));
    response.setHeader('Access-Control-Max-Age', String(cors.maxAgeSeconds));
    response.status(204).end();
  };
}

function requestedHeaders(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((header) => header.trim())
    .filter((header) => header !== '');
}

function invalid(): ForbiddenException {
  return new ForbiddenException('Invalid CORS request');
}
