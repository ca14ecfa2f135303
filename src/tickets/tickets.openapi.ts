import { applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiHeader,
  ApiNotModifiedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import {
  ApiErrorResponse,
  ApiProblemResponse,
  ApiTypedProblemResponse,
  type ErrorExample,
} from '../common/errors/api-error-response.decorator.js';
import { ProblemDetailResponse } from '../common/errors/problem-detail-response.dto.js';
import { mapError } from '../common/errors/error-mapping.js';
import { InvalidTransitionProblemResponse } from './dto/invalid-transition-problem-response.dto.js';
import { TicketTransitionsResponse } from './dto/ticket-transitions-response.dto.js';
import { TagsChangeRequest } from '../tags/dto/tags-change-request.dto.js';
import { TAGS_MESSAGE } from '../tags/tags.js';
import { ApiIdempotencyKey, idempotentReplayedHeader, keyInUseExample } from '../idempotency/idempotency.openapi.js';
import { springFieldError } from '../common/errors/spring-field-error.js';
import { TicketPageResponse } from './dto/ticket-page-response.dto.js';
import { TicketPatch } from './dto/ticket-patch.dto.js';
import { TicketRequest } from './dto/ticket-request.dto.js';
import { TicketResponse } from './dto/ticket-response.dto.js';
import { TicketV2Response } from './dto/ticket-v2-response.dto.js';
import { assertIfMatch, ticketEtag } from './ticket-etag.js';
import { IdPipe } from '../common/http/id.pipe.js';
import type { QueryDialect } from '../common/paging/query-parameters.js';
import { ApiTicketQueryParameters, queryErrorExamples } from './ticket-query.openapi.js';
import { TicketStatus } from './ticket-status.enum.js';
import { assertTransition } from './ticket-workflow.js';
import { versionedOperationId } from '../docs/operation-ids.js';

/*
 * The OpenAPI description of the tickets controllers, one decorator per operation, for each version: v1 with
 * Spring's error body, v2 with problem+json. Error examples come from the code that produces the real errors
 * (pipes, query parser, error mapping, field-error builder), so they stay true.
 */

function messageOf(run: () => unknown): string {
  return rejectionOf(run).message;
}

/** The message (and problem type, if any) of the error `run` is expected to throw. */
function rejectionOf(run: () => unknown): Pick<ErrorExample, 'message' | 'problem'> & { message: string } {
  try {
    run();
  } catch (error) {
    const { message = '', problem } = mapError(error);
    return { message, ...(problem && { problem }) };
  }
  throw new Error('expected the example input to be rejected');
}

/** `objectName`: the body's DTO as Spring names it (ticketRequest for POST and PUT, ticketPatch for PATCH). */
const validationFailed = (path: string, objectName: string): ErrorExample => ({
  summary: 'Validation failed (all violations at once, in field order)',
  path,
  message: `Validation failed for object='${objectName}'. Error count: 2`,
  errors: [
    springFieldError(objectName, 'title', 'NotBlank', 'java.lang.String', [], 'Title is required', ''),
    springFieldError(
      objectName,
      'requesterEmail',
      'Email',
      'java.lang.String',
      [[], { codes: ['.*'], arguments: null, defaultMessage: '.*', code: '.*' }],
      'Invalid email format',
      'jane.doe',
    ),
  ],
});

const wrongEnumValue = (path: string, objectName: string): ErrorExample => ({
  summary: 'Enum value outside the enum (enums are exact-case)',
  path,
  message: `Validation failed for object='${objectName}'. Error count: 1`,
  errors: [
    springFieldError(
      objectName,
      'status',
      'typeMismatch',
      'TicketStatus',
      [],
      `Failed to convert value to required type 'TicketStatus'; accepted values: [${Object.values(TicketStatus).join(', ')}]`,
      'open',
    ),
  ],
});

const malformedJson = (path: string): ErrorExample => ({
  summary: 'Malformed JSON',
  path,
  message: messageOf(() => {
    throw Object.assign(new SyntaxError("Expected ',' or '}' after property value in JSON at position 12"), {
      type: 'entity.parse.failed',
    });
  }),
});

/** The custom field filters, whose names depend on the fields defined (GET /api/v2/fields). */
const FIELD_FILTERS =
  'Custom fields filter by `field.<key>=a,b` (any of; text, enum, boolean, multi_enum) and `field.<key>.gte=` / `field.<key>.lt=` ' +
  '(number, date); an unknown field or a value its definition cannot hold is a 400 naming the parameter (docs/api.md#custom-fields).';

const EXAMPLE_ETAG = ticketEtag({ id: 42, updatedAt: new Date('2026-11-22T20:37:14.123Z') });

/** The ETag header of a response that carries one ticket. */
const etagHeader = {
  ETag: {
    description: "The ticket version's strong entity tag; send it back in If-Match to update or delete only that version",
    required: true,
    schema: { type: 'string', example: EXAMPLE_ETAG },
  },
};

const idParam = ApiParam({
  name: 'id',
  description: 'The ticket id',
  schema: { type: 'integer', format: 'int64', minimum: 1 },
  example: 42,
});

const pageHeaders = {
  Link: {
    description: 'The next page, when there is one: `<path?same query&cursor=…>; rel="next"`',
    schema: { type: 'string', example: '</api/tickets?status=OPEN&limit=50&cursor=eyJxIjoi…>; rel="next"' },
  },
  'X-Total-Count': {
    description: 'How many tickets match the filters (not sent with total=false)',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
};

/** The decorators of one version's operations: its paths, and its error shape (Spring's body in v1, problem+json in v2). */
export function ticketsApi(version: QueryDialect) {
  const collection = version === 'v1' ? '/api/tickets' : '/api/v2/tickets';
  const one = `${collection}/42`;
  const errorResponse = version === 'v1' ? ApiErrorResponse : ApiProblemResponse;
  const ticketType = version === 'v1' ? TicketResponse : TicketV2Response;
  const invalidId: ErrorExample = {
    summary: 'Id is not a positive 64-bit integer',
    path: `${collection}/abc`,
    message: messageOf(() => new IdPipe().transform('abc')),
  };
  const notFound = () =>
    errorResponse(404, 'No ticket has this id', { summary: 'Unknown id', path: one, message: 'Ticket not found with id: 42' });

  /** 400, 413 and 415 of an operation with a TicketRequest body; `more` adds its other 400 cases. */
  const bodyErrors = (path: string, ...more: ErrorExample[]) =>
    applyDecorators(bodyErrorResponses(path, 'ticketRequest', ...more), ApiConsumes('application/json'));

  /** The error responses of an operation with a JSON body, whatever media types it consumes. */
  const bodyErrorResponses = (path: string, objectName: string, ...more: ErrorExample[]) =>
    applyDecorators(
      errorResponse(
        400,
        'The body failed validation, is not a JSON object, or holds a value of the wrong type',
        validationFailed(path, objectName),
        wrongEnumValue(path, objectName),
        malformedJson(path),
        ...more,
      ),
      errorResponse(413, 'The body is larger than 1 MiB', {
        summary: 'Body too large',
        path,
        message: messageOf(() => {
          throw Object.assign(new Error('request entity too large'), { type: 'entity.too.large' });
        }),
      }),
      errorResponse(
        415,
        'The body is not declared as JSON (Content-Type must be application/json or another +json type; a charset is allowed)',
        {
          summary: 'Not JSON',
          path,
          message: 'Content-Type "text/plain" is not supported',
        },
      ),
    );

  /** Optional optimistic locking on PUT and DELETE, and the 412 it leads to. */
  const ifMatch = () =>
    applyDecorators(
      ApiHeader({
        name: 'if-match',
        required: false,
        // The example only in the description: Swagger UI's Try it out sends a schema's example, and a made-up
        // version makes every try a 412.
        description: `Only change the ticket while it is still this version: an ETag from an earlier response (e.g. \`${EXAMPLE_ETAG}\`), or \`*\``,
        schema: { type: 'string' },
      }),
      errorResponse(412, 'If-Match names a version other than the current one: the ticket changed meanwhile', {
        summary: 'Stale version',
        path: one,
        message: messageOf(() => assertIfMatch('"42-1"', { id: 42, updatedAt: new Date('2026-11-22T20:37:14.123Z') })),
      }),
    );

  /**
   * The 409 of a status move that TICKET_WORKFLOW=strict does not allow (v2 names from, to and allowed); with
   * `idempotent`, also the 409 of an Idempotency-Key whose first request is still running.
   */
  const invalidTransition = (idempotent = false) => {
    const example: ErrorExample = {
      summary: 'Status move the workflow does not allow',
      path: one,
      ...rejectionOf(() => assertTransition('strict', TicketStatus.OPEN, TicketStatus.CLOSED)),
    };
    const transition =
      'With TICKET_WORKFLOW=strict: the workflow does not allow the ticket to move from its status to the one asked for; nothing was changed';
    if (!idempotent) {
      return version === 'v1'
        ? ApiErrorResponse(409, transition, example)
        : ApiTypedProblemResponse(InvalidTransitionProblemResponse, 409, transition, example);
    }
    const description = `${transition}. Or: a request with the same Idempotency-Key is still being processed; retry later`;
    return version === 'v1'
      ? ApiErrorResponse(409, description, example, keyInUseExample(one))
      : ApiTypedProblemResponse([InvalidTransitionProblemResponse, ProblemDetailResponse], 409, description, example, keyInUseExample(one));
  };

  const operationId = (name: string) => versionedOperationId(version, name);

  const locationHeader = {
    ...etagHeader,
    Location: { description: 'Where the new ticket is', required: true, schema: { type: 'string', example: `${collection}/42` } },
  };

  return {
    tickets: () =>
      applyDecorators(
        ApiTags(version === 'v1' ? 'tickets' : 'tickets v2'),
        ApiProduces('application/json'),
        errorResponse(503, 'The database cannot be reached right now; retry later', {
          summary: 'Database unavailable',
          path: collection,
          message: messageOf(() => {
            throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
          }),
        }),
        errorResponse(500, 'An unexpected failure (logged with its cause)'),
      ),

    create: () =>
      applyDecorators(
        ApiOperation({
          operationId: operationId('createTicket'),
          summary: 'Create a ticket',
          description:
            'Stores the ticket, records its history entry and publishes a CREATED event (see /asyncapi.yaml) after the commit. ' +
            'Safe to retry with an Idempotency-Key.',
        }),
        ApiBody({ type: TicketRequest }),
        ApiCreatedResponse({
          description: 'The stored ticket, with its generated id and timestamps (or, with Idempotency-Key, the stored response replayed)',
          type: ticketType,
          headers: { ...locationHeader, ...idempotentReplayedHeader },
        }),
        bodyErrors(collection),
        ApiIdempotencyKey(errorResponse, collection),
      ),

    list: () =>
      applyDecorators(
        version === 'v1'
          ? ApiOperation({
              operationId: operationId('listTickets'),
              summary: 'List tickets',
              description:
                'All matching tickets in a plain array, in ascending id order unless `sort` says otherwise. Filters combine (AND), ' +
                'except that `requesterEmail` is ignored when `status` is given. With `limit`, one page at a time: the Link header ' +
                'leads to the next page and X-Total-Count gives the number of matches. ' +
                FIELD_FILTERS,
            })
          : ApiOperation({
              operationId: operationId('listTickets'),
              summary: 'List tickets, a page at a time',
              description:
                'One page of the matching tickets, in ascending id order unless `sort` says otherwise. Every filter ANDs with the ' +
                'others; an unknown parameter is a 400. `nextCursor` (and the Link header) lead to the next page. ' +
                FIELD_FILTERS,
            }),
        ApiTicketQueryParameters(version),
        version === 'v1'
          ? ApiOkResponse({
              description: 'The matching tickets; an empty array when none match',
              type: [TicketResponse],
              headers: pageHeaders,
            })
          : ApiOkResponse({ description: 'One page of the matching tickets', type: TicketPageResponse, headers: pageHeaders }),
        errorResponse(
          400,
          'A query parameter has a value it cannot take' + (version === 'v2' ? ', or is unknown' : ''),
          ...queryErrorExamples(version, collection),
        ),
      ),

    get: () =>
      applyDecorators(
        ApiOperation({ operationId: operationId('getTicket'), summary: 'Read one ticket' }),
        idParam,
        ApiHeader({
          name: 'if-none-match',
          required: false,
          description: `An ETag the client holds (e.g. \`${EXAMPLE_ETAG}\`): when it is still current the answer is 304 without a body`,
          schema: { type: 'string' },
        }),
        ApiOkResponse({ description: 'The ticket', type: ticketType, headers: etagHeader }),
        ApiNotModifiedResponse({ description: 'The ticket is still the version If-None-Match names; no body', headers: etagHeader }),
        errorResponse(400, 'The id is not a positive 64-bit integer', invalidId),
        notFound(),
      ),

    replace: () =>
      applyDecorators(
        ApiOperation({
          operationId: operationId('replaceTicket'),
          summary: 'Replace a ticket',
          description:
            'A full replacement: omitted optional fields become null. Sets resolvedAt the first time the status becomes RESOLVED or CLOSED, ' +
            'advances updatedAt, and publishes an UPDATED event after the commit. With TICKET_WORKFLOW=strict a status move the workflow ' +
            'does not allow is a 409 (GET …/transitions lists the allowed ones).',
        }),
        idParam,
        ApiBody({ type: TicketRequest }),
        ApiOkResponse({ description: 'The ticket after the update', type: ticketType, headers: etagHeader }),
        bodyErrors(one, invalidId),
        notFound(),
        ifMatch(),
        invalidTransition(),
      ),

    patch: () =>
      applyDecorators(
        ApiOperation({
          operationId: operationId('patchTicket'),
          summary: 'Change some fields of a ticket (JSON merge patch)',
          description:
            'RFC 7396: fields present replace, fields absent are kept, null clears assignedTo (null or blank on a required field is a 400). ' +
            'The same rules as PUT: sets resolvedAt the first time the status becomes RESOLVED or CLOSED, advances updatedAt, records a ' +
            'history entry and publishes an UPDATED event (the same body as for PUT) after the commit; the same 409 for a status move ' +
            'the strict workflow does not allow. Safe to retry with an Idempotency-Key (PUT and DELETE are idempotent by HTTP and ignore it).',
        }),
        idParam,
        ApiConsumes('application/merge-patch+json', 'application/json'),
        ApiBody({ type: TicketPatch }),
        ApiOkResponse({
          description: 'The ticket after the update (or, with Idempotency-Key, the stored response replayed)',
          type: ticketType,
          headers: { ...etagHeader, ...idempotentReplayedHeader },
        }),
        bodyErrorResponses(one, 'ticketPatch', invalidId),
        notFound(),
        ifMatch(),
        invalidTransition(true),
        ApiIdempotencyKey(errorResponse, one, 'change', true),
      ),

    retag: () =>
      applyDecorators(
        ApiOperation({
          operationId: operationId('changeTicketTags'),
          summary: "Add and remove a ticket's tags",
          description:
            'Adds the tags of `add` and removes those of `remove` (a tag in both is removed; one the ticket lacks is no error), under ' +
            "the ticket's lock, so that two clients' changes both survive. An update like a PATCH: advances updatedAt, records a history " +
            'entry naming `tags` and an UPDATED event, honours If-Match and an Idempotency-Key. A ticket carries at most 50 tags (400).',
        }),
        idParam,
        ApiConsumes('application/json'),
        ApiBody({ type: TagsChangeRequest }),
        ApiOkResponse({
          description: 'The ticket after the change (or, with Idempotency-Key, the stored response replayed)',
          type: ticketType,
          headers: { ...etagHeader, ...idempotentReplayedHeader },
        }),
        errorResponse(
          400,
          'An item is not a tag, the ticket would carry more than 50, the body is not a JSON object, or the id is not a positive 64-bit integer',
          {
            summary: 'Not a tag',
            path: `${one}/tags`,
            message: "Validation failed for object='tagsChangeRequest'. Error count: 1",
            errors: [springFieldError('tagsChangeRequest', 'add', 'Tags', 'java.util.List', [], TAGS_MESSAGE, ['two words'])],
          },
          malformedJson(`${one}/tags`),
          invalidId,
        ),
        notFound(),
        ifMatch(),
        ApiIdempotencyKey(errorResponse, `${one}/tags`, 'change', true),
      ),

    transitions: () =>
      applyDecorators(
        ApiOperation({
          operationId: operationId('getTicketTransitions'),
          summary: 'Statuses a ticket may move to',
          description:
            "The ticket's status and the statuses a PUT or PATCH may set under the configured workflow (TICKET_WORKFLOW): with " +
            '`open` (the default) every status; with `strict` the moves of the workflow table, the current status included.',
        }),
        idParam,
        ApiOkResponse({ description: 'The current status and the allowed next ones', type: TicketTransitionsResponse }),
        errorResponse(400, 'The id is not a positive 64-bit integer', { ...invalidId, path: `${collection}/abc/transitions` }),
        errorResponse(404, 'No ticket has this id', {
          summary: 'Unknown id',
          path: `${one}/transitions`,
          message: 'Ticket not found with id: 42',
        }),
      ),

    remove: () =>
      applyDecorators(
        ApiOperation({
          operationId: operationId('deleteTicket'),
          summary: 'Delete a ticket',
          description:
            'Removes it for good, with its comments and history. Publishes a DELETED event (routing key ticket.deleted, the ticket as it ' +
            'was last stored) after the commit; nothing reaches the v1 binding (ticket.routing.key).',
        }),
        idParam,
        ApiNoContentResponse({ description: 'Deleted; no body' }),
        errorResponse(400, 'The id is not a positive 64-bit integer', invalidId),
        notFound(),
        ifMatch(),
      ),
  };
}
