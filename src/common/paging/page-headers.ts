import type { Response } from 'express';

/**
 * `X-Total-Count` when the total was counted, and `Link: <…>; rel="next"` when there is a next page: the
 * request's own query with the cursor replaced, on the collection's path (a reference relative to the host,
 * so it holds behind any proxy that keeps paths, and trusts no Host header).
 */
export function setPageHeaders(
  response: Response,
  collectionPath: string,
  originalUrl: string,
  page: { nextCursor: string | null; total: number | null },
): void {
  if (page.total !== null) response.setHeader('X-Total-Count', String(page.total));
  if (page.nextCursor !== null) response.setHeader('Link', `<${nextPageUrl(collectionPath, originalUrl, page.nextCursor)}>; rel="next"`);
}

export function nextPageUrl(collectionPath: string, originalUrl: string, cursor: string): string {
  const queryStart = originalUrl.indexOf('?');
  const params = new URLSearchParams(queryStart >= 0 ? originalUrl.slice(queryStart + 1) : '');
  params.delete('cursor');
  params.append('cursor', cursor);
  return `${collectionPath}?${params}`;
}
