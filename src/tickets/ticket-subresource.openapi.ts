import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiProduces, ApiQuery } from '@nestjs/swagger';
import { ApiErrorResponse, ApiProblemResponse, type ErrorExample } from '../common/errors/api-error-response.decorator.js';
import { mapError } from '../common/errors/error-mapping.js';
import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { parseKeysetPage } from '../common/paging/keyset-page.js';
import { PAGE_LIMIT } from '../common/paging/page-limit.js';
import type { QueryDialect } from '../common/paging/query-parameters.js';
import { IdPipe } from '../common/http/id.pipe.js';

/*
 * OpenAPI pieces shared by a ticket's sub-resources (comments, history) in each version: the ticket id, the
 * paging parameters and the errors they lead to, with examples built by the code that produces the real ones.
 */

function rejected(run: () => unknown): { message: string; errors?: ValidationFailedException['fieldErrors'] } {
  try {
    run();
  } catch (error) {
    return { message: mapError(error).message ?? '', ...(error instanceof ValidationFailedException && { errors: error.fieldErrors }) };
  }
  throw new Error('expected the example input to be rejected');
}

export function ticketSubresourceApi(version: QueryDialect, subresource: string) {
  const prefix = version === 'v1' ? '/api/tickets' : '/api/v2/tickets';
  const path = `${prefix}/42/${subresource}`;
  const errorResponse = version === 'v1' ? ApiErrorResponse : ApiProblemResponse;
  const invalidId: ErrorExample = {
    summary: 'Id is not a positive 64-bit integer',
    path: `${prefix}/abc/${subresource}`,
    ...rejected(() => new IdPipe().transform('abc')),
  };
  const badLimit: ErrorExample = {
    summary: 'limit out of range',
    path,
    ...rejected(() => parseKeysetPage({ limit: '0' }, version, 'example', 'pageQuery')),
  };

  return {
    path,
    errorResponse,
    /** The parent ticket's id, the 400 for a bad one and the 404 for an unknown one, and the common 5xx. */
    ticket: (...more400: ErrorExample[]) =>
      applyDecorators(
        ApiProduces('application/json'),
        ApiParam({ name: 'id', description: 'The ticket id', schema: { type: 'integer', format: 'int64', minimum: 1 }, example: 42 }),
        errorResponse(400, 'The ticket id is not a positive 64-bit integer, or the request failed validation', invalidId, ...more400),
        errorResponse(404, 'No ticket has this id', { summary: 'Unknown ticket', path, message: 'Ticket not found with id: 42' }),
        errorResponse(503, 'The database cannot be reached right now; retry later', {
          summary: 'Database unavailable',
          path,
          message: mapError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })).message,
        }),
        errorResponse(500, 'An unexpected failure (logged with its cause)'),
      ),
    /** `limit` and `cursor`, and an example of their 400. */
    paging: () =>
      applyDecorators(
        ApiQuery({
          name: 'limit',
          required: false,
          description:
            `At most this many items per page (${PAGE_LIMIT.min}-${PAGE_LIMIT.max})` +
            (version === 'v1' ? '; without it, every item in one array' : `; default ${PAGE_LIMIT.v2Default}`),
          schema: { type: 'integer', minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max },
        }),
        ApiQuery({
          name: 'cursor',
          required: false,
          description: 'Where the next page starts: the cursor of the previous page (opaque; from `Link` or `nextCursor`)',
          schema: { type: 'string' },
        }),
      ),
    badLimit,
    pageHeaders: {
      Link: {
        description: 'The next page, when there is one: `<path?same query&cursor=…>; rel="next"`',
        schema: { type: 'string', example: `<${path}?limit=50&cursor=eyJxIjoi…>; rel="next"` },
      },
    },
  };
}
