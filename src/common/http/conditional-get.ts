import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request } from 'express';

/** RFC 9110 §13.1.2: `*`, or one of the listed entity tags equal to the response's by weak comparison. */
export function ifNoneMatchSatisfied(ifNoneMatch: string, etag: string | undefined): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  if (etag === undefined) return false;
  const opaque = (tag: string) => tag.replace(/^W\//, '');
  const tags: string[] = ifNoneMatch.match(/(?:W\/)?"[^"]*"/g) ?? [];
  return tags.some((tag) => opaque(tag) === opaque(etag));
}

/**
 * Express's req.fresh answers "stale" to every request with `Cache-Control: no-cache`, which browsers and fetch add
 * to their conditional requests, so they never got a 304. An origin evaluates If-None-Match whatever the request's
 * cache directives say (RFC 9110 §13.2.1), so req.fresh is replaced, as Express's guide "Overriding the Express API"
 * shows. No response here sends Last-Modified, so If-Modified-Since never makes one fresh.
 */
export function answerIfNoneMatchAsOrigin(app: NestExpressApplication): void {
  Object.defineProperty(app.getHttpAdapter().getInstance().request, 'fresh', {
    configurable: true,
    enumerable: true,
    get(this: Request): boolean {
      const ifNoneMatch = this.get('If-None-Match');
      const response = this.res;
      if (ifNoneMatch === undefined || response === undefined || !['GET', 'HEAD'].includes(this.method)) return false;
      const status = response.statusCode;
      if ((status < 200 || status > 299) && status !== 304) return false;
      return ifNoneMatchSatisfied(ifNoneMatch, response.get('ETag'));
    },
  });
}
