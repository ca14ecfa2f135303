import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiProblemResponse, ApiTypedProblemResponse, type ErrorExample } from '../common/errors/api-error-response.decorator.js';
import { mapError } from '../common/errors/error-mapping.js';
import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { CHANGES_LIMIT, MAX_WAIT_SECONDS, parseChangesQuery } from './changes-query.js';
import { RESYNC_REQUIRED, resyncRequired } from './resync-required.js';
import { ResyncRequiredProblemResponse } from './dto/resync-required-problem-response.dto.js';
import { ChangeItemResponse } from './dto/change-item-response.dto.js';
import { ChangePageResponse } from './dto/change-page-response.dto.js';

const PATH = '/api/v2/changes';

/** A 400 example built by the parser that produces the real one. */
function rejected(summary: string, raw: Record<string, unknown>): ErrorExample {
  try {
    parseChangesQuery(raw);
  } catch (error) {
    return {
      summary,
      path: PATH,
      message: mapError(error).message ?? '',
      ...(error instanceof ValidationFailedException && { errors: error.fieldErrors }),
    };
  }
  throw new Error('expected the example input to be rejected');
}

/** The OpenAPI description of the change feed: JSON pages and Server-Sent Events on one path. */
export const changesApi = {
  controller: () => ApiTags('changes v2'),
  read: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'readChanges',
        summary: 'The change feed: every committed change, in order, from a cursor',
        description:
          'Every event of every ticket (CREATED, UPDATED, DELETED as a tombstone, COMMENT_ADDED, and kinds added later), in the order ' +
          "they were numbered after commit: a consumer that follows `nextCursor` sees each change once, and a ticket's changes in " +
          'commit order, with no change ever appearing before a cursor it already holds. `Accept: text/event-stream` serves the same ' +
          'items as Server-Sent Events (`id` = cursor, `event` = eventType, `data` = the item), resumable with `Last-Event-ID`, with a ' +
          '`: heartbeat` comment when idle. A stream ends when its token is no longer accepted, and after CHANGES_STREAM_MAX_SECONDS at ' +
          'the latest, with a `: stream-end <reason>: …` comment: reconnect (with a fresh token) and `Last-Event-ID`. A long-poll ' +
          'answers by then too. See docs/changes.md.',
      }),
      ApiProduces('application/json', 'text/event-stream'),
      ApiQuery({
        name: 'after',
        required: false,
        description: "Read the changes after this cursor (from `nextCursor` or an item's `cursor`)",
        schema: { type: 'string' },
      }),
      ApiQuery({
        name: 'since',
        required: false,
        description:
          'For a first read instead of `after`: start at the first change that occurred at or after this instant. Neither: from the oldest change kept',
        schema: { type: 'string', format: 'date-time' },
      }),
      ApiQuery({
        name: 'limit',
        required: false,
        description: `At most this many items (${CHANGES_LIMIT.min}-${CHANGES_LIMIT.max}; default ${CHANGES_LIMIT.default})`,
        schema: { type: 'integer', minimum: CHANGES_LIMIT.min, maximum: CHANGES_LIMIT.max },
      }),
      ApiQuery({
        name: 'waitSeconds',
        required: false,
        description: `Long-poll (JSON only): when no change follows, wait up to this long for one (0-${MAX_WAIT_SECONDS}; default 0)`,
        schema: { type: 'integer', minimum: 0, maximum: MAX_WAIT_SECONDS },
      }),
      ApiHeader({ name: 'Last-Event-ID', required: false, description: 'SSE: the `id` of the last event received; stands for `after`' }),
      ApiExtraModels(ChangePageResponse, ChangeItemResponse),
      ApiOkResponse({
        description: 'A page of changes (JSON), or an endless stream of them (SSE)',
        content: {
          'application/json': { schema: { $ref: getSchemaPath(ChangePageResponse) } },
          'text/event-stream': {
            schema: {
              type: 'string',
              description:
                'Events `id: <cursor>`, `event: <eventType>`, `data: <item JSON>`; comments `: heartbeat` and, last, `: stream-end <reason>: …`',
            },
            example:
              'id: eyJxIjoiY2hhbmdlcyIsImsiOlsxXX0.abc\nevent: CREATED\ndata: {"cursor":"…","eventType":"CREATED",…}\n\n: heartbeat\n\n',
          },
        },
      }),
      ApiProblemResponse(
        400,
        'A query parameter is malformed, unknown or out of range, or the cursor was not issued by the feed',
        rejected('Malformed cursor', { after: 'not-a-cursor' }),
        rejected('limit out of range', { limit: '0' }),
      ),
      ApiTypedProblemResponse(
        ResyncRequiredProblemResponse,
        410,
        'Changes after this cursor (or since this instant) are past retention: re-read the tickets and resume from a fresh cursor',
        {
          summary: 'Resync required',
          path: PATH,
          message: resyncRequired('Changes after this cursor were deleted: only 7 days are kept').message,
          problem: RESYNC_REQUIRED,
        },
      ),
      ApiProblemResponse(
        429,
        'The client already holds CHANGES_STREAMS_PER_CLIENT streams and long-polls (10 by default) on this replica; ' +
          '`Retry-After` says when the first of them ends at the latest',
      ),
      ApiProblemResponse(503, 'The database cannot be reached right now; retry later'),
      ApiProblemResponse(500, 'An unexpected failure (logged with its cause)'),
    ),
};
