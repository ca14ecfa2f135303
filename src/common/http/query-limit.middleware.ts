import { BadRequestException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { REQUEST_LIMITS } from './request-limits.js';

/** Counts the parameters of a raw query string (`a=1&b&&c=` has three). */
export function queryParameterCount(url: string): number {
  const start = url.indexOf('?');
  if (start < 0) return 0;
  let count = 0;
  for (const part of url.slice(start + 1).split('&')) if (part !== '') count++;
  return count;
}

/**
 * Refuses requests with more query parameters than any endpoint could use, before anything parses them.
 * Express's own parser would silently drop those past 1000, which could drop a filter the client meant.
 */
export function limitQueryParameters(req: Request, _res: Response, next: NextFunction): void {
  if (queryParameterCount(req.originalUrl) > REQUEST_LIMITS.queryParameters) {
    next(new BadRequestException(`Too many query parameters: at most ${REQUEST_LIMITS.queryParameters} are accepted`));
    return;
  }
  next();
}
