/**
 * The labels of Micrometer's http.server.requests as Spring Boot 3 writes them (DefaultServerRequestObservationConvention).
 */

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE']);

/** The `method` label: one of HTTP's standard methods, UNKNOWN for anything else a client sends. */
export function methodOf(method: string | undefined): string {
  return method !== undefined && HTTP_METHODS.has(method) ? method : 'UNKNOWN';
}

/** SUCCESS, CLIENT_ERROR, … from the status code, as Micrometer's Outcome does. */
export function outcomeOf(status: number): string {
  if (status >= 100 && status < 200) return 'INFORMATIONAL';
  if (status >= 200 && status < 300) return 'SUCCESS';
  if (status >= 300 && status < 400) return 'REDIRECTION';
  if (status >= 400 && status < 500) return 'CLIENT_ERROR';
  if (status >= 500 && status < 600) return 'SERVER_ERROR';
  return 'UNKNOWN';
}

/**
 * The `uri` label: the matched route's template in Spring's notation (`/api/tickets/{id}`), never the raw path,
 * so that what clients send cannot add series. Without a matched route: REDIRECTION for a 3xx, NOT_FOUND for a
 * 404, UNKNOWN otherwise.
 */
export function uriOf(routePath: string | undefined, status: number): string {
  if (routePath !== undefined) return routePath === '' ? 'root' : routePath;
  if (status >= 300 && status < 400) return 'REDIRECTION';
  if (status === 404) return 'NOT_FOUND';
  return 'UNKNOWN';
}

/**
 * Express' `/api/tickets/:id` as Spring writes a pattern: `/api/tickets/{id}`. A route with a wildcard has no
 * template: Nest answers unmatched paths from such a catch-all route (`{/*path}`), whose "template" would say
 * nothing, so its requests are labelled by status (NOT_FOUND) as Spring labels requests no handler matched.
 */
export function springTemplate(expressPath: string): string | undefined {
  if (expressPath.includes('*')) return undefined;
  return expressPath.replace(/:(\w+)/g, '{$1}');
}
