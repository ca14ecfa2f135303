import {
  getSchemaPath,
  type HeaderObject,
  type OpenAPIObject,
  type OperationObject,
  type PathItemObject,
  type ResponseObject,
} from '@nestjs/swagger';
import { EXAMPLE_TIME } from '../common/errors/api-error-response.decorator.js';
import { PROBLEM_JSON, problemDetails } from '../common/errors/problem-details.js';
import { ProblemDetailResponse } from '../common/errors/problem-detail-response.dto.js';
import { springErrorBody } from '../common/errors/spring-error-body.js';
import { SpringErrorResponse } from '../common/errors/spring-error-response.dto.js';
import type { SecurityConfig } from '../config/security-config.js';
import { INSUFFICIENT_SCOPE } from '../security/jwt/bearer-token.exception.js';

/** The name of the bearer scheme in the document; Swagger UI's Authorize button offers it. */
const BEARER_SCHEME = 'bearer';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

const text = (description: string, pattern?: string): HeaderObject => ({
  description,
  required: true,
  schema: { type: 'string', ...(pattern && { pattern }) },
});
const CHALLENGE = text('`Bearer`, with `error`, `error_description` and (for 403) the `scope` that would do, as RFC 6750 writes them');
const RATE_LIMIT_HEADERS = {
  'Retry-After': text('Seconds until the window ends', '^\\d+$'),
  RateLimit: text('draft-ietf-httpapi-ratelimit-headers: `"default";r=0;t=<seconds>`'),
  'RateLimit-Policy': text('draft-ietf-httpapi-ratelimit-headers: `"default";q=<requests>;w=<window seconds>`'),
};

/**
 * What the security filters answer, on every operation under /api (the actuator's operations are never rate limited,
 * and their token only decides how much health shows, never whether it answers): with bearer tokens on, the bearer scheme as each operation's `security` and its 401
 * and 403; with a rate limit, its 429. Each in its version's error shape, so clients get types for them.
 *
 * The document's own `security` is empty: an operation needs no credentials unless it says so (with tokens off, none
 * does; with them on, the actuator's answer anonymously too).
 */
export function withSecurity(document: OpenAPIObject, security: SecurityConfig): OpenAPIObject {
  document.security = [];
  if (security.jwt) {
    document.components = {
      ...document.components,
      securitySchemes: {
        ...document.components?.securitySchemes,
        [BEARER_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'An access token of the configured issuer: scope tickets.read to read, tickets.write to write; webhooks.manage and ' +
            'organizations.manage for those resources; tickets.requester (without the other two) acts for the person of its ' +
            'email claim, who sees only their own tickets and those their organization shares (docs/security.md).',
        },
      },
    };
  }
  const limit = security.rateLimit;
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const operation of operationsOf(item)) {
      if (security.jwt) {
        operation.security = [{ [BEARER_SCHEME]: [] }];
        operation.responses['401'] = refusal(
          path,
          401,
          'No token, or a token refused (expired, another issuer or audience, a bad signature)',
          'Full authentication is required to access this resource',
          { 'WWW-Authenticate': CHALLENGE },
        );
        operation.responses['403'] = refusal(path, 403, 'The token lacks the scope the operation needs', INSUFFICIENT_SCOPE, {
          'WWW-Authenticate': CHALLENGE,
        });
      }
      if (limit) {
        const message = `Rate limit exceeded: at most ${limit.requests} requests per ${limit.windowSeconds} seconds`;
        operation.responses['429'] = refusal(
          path,
          429,
          'Past the rate limit of the client (token subject, or else address)',
          message,
          RATE_LIMIT_HEADERS,
        );
      }
      operation.responses = Object.fromEntries(Object.entries(operation.responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
  return document;
}

function operationsOf(item: PathItemObject): OperationObject[] {
  return METHODS.map((method) => item[method]).filter((found): found is OperationObject => found !== undefined);
}

/** An error response in the path's version's shape: Spring's error body for v1, a problem under /api/v2. */
function refusal(
  path: string,
  status: number,
  description: string,
  message: string,
  headers: Record<string, HeaderObject>,
): ResponseObject {
  const summary = description.split(' (')[0];
  const v2 = path.startsWith('/api/v2/');
  const value = v2 ? problemDetails(status, path, message) : springErrorBody(status, path, message, undefined, EXAMPLE_TIME);
  const schema = { $ref: getSchemaPath(v2 ? ProblemDetailResponse : SpringErrorResponse) };
  const content = { [v2 ? PROBLEM_JSON : 'application/json']: { schema, examples: { [summary]: { summary, value } } } };
  return { description, headers, content };
}
