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
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { ApiErrorResponse, type ErrorExample } from '../common/errors/api-error-response.decorator.js';
import { mapError } from '../common/errors/error-mapping.js';
import { springFieldError } from '../common/errors/spring-field-error.js';
import { TicketRequest } from './dto/ticket-request.dto.js';
import { TicketResponse } from './dto/ticket-response.dto.js';
import { assertIfMatch, ticketEtag } from './ticket-etag.js';
import { TicketIdPipe } from './ticket-id.pipe.js';
import { TicketStatus } from './ticket-status.enum.js';
import { TicketStatusFilterPipe } from './ticket-status-filter.pipe.js';

/*
 * The OpenAPI description of TicketsController, one decorator per operation. Error examples come from the
 * code that produces the real errors (pipes, error mapping, field-error builder), so they stay true.
 */

const COLLECTION = '/api/tickets';
const ONE = '/api/tickets/42';

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return mapError(error).message ?? '';
  }
  throw new Error('expected the example input to be rejected');
}

const invalidId: ErrorExample = {
  summary: 'Id is not a positive 64-bit integer',
  path: '/api/tickets/abc',
  message: messageOf(() => new TicketIdPipe().transform('abc')),
};

const validationFailed = (path: string): ErrorExample => ({
  summary: 'Validation failed (all violations at once, in field order)',
  path,
  message: "Validation failed for object='ticketRequest'. Error count: 2",
  errors: [
    springFieldError('ticketRequest', 'title', 'NotBlank', 'java.lang.String', [], 'Title is required', ''),
    springFieldError('ticketRequest', 'requesterEmail', 'Email', 'java.lang.String', [[], { codes: ['.*'], arguments: null, defaultMessage: '.*', code: '.*' }], 'Invalid email format', 'jane.doe'),
  ],
});

const wrongEnumValue = (path: string): ErrorExample => ({
  summary: 'Enum value outside the enum (enums are exact-case)',
  path,
  message: "Validation failed for object='ticketRequest'. Error count: 1",
  errors: [
    springFieldError(
      'ticketRequest',
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
    throw Object.assign(new SyntaxError("Expected ',' or '}' after property value in JSON at position 12"), { type: 'entity.parse.failed' });
  }),
});

const notFound = () =>
  ApiErrorResponse(404, 'No ticket has this id', { summary: 'Unknown id', path: ONE, message: 'Ticket not found with id: 42' });

/** 400, 413 and 415 of an operation with a TicketRequest body; `more` adds its other 400 cases. */
const bodyErrors = (path: string, ...more: ErrorExample[]) =>
  applyDecorators(
    ApiConsumes('application/json'),
    ApiErrorResponse(
      400,
      'The body failed validation, is not a JSON object, or holds a value of the wrong type',
      validationFailed(path),
      wrongEnumValue(path),
      malformedJson(path),
      ...more,
    ),
    ApiErrorResponse(413, 'The body is larger than 1 MiB', {
      summary: 'Body too large',
      path,
      message: messageOf(() => {
        throw Object.assign(new Error('request entity too large'), { type: 'entity.too.large' });
      }),
    }),
    ApiErrorResponse(415, 'The body is not declared as JSON (Content-Type must be application/json; a charset is allowed)', {
      summary: 'Not JSON',
      path,
      message: 'Content-Type "text/plain" is not supported',
    }),
  );

const EXAMPLE_ETAG = ticketEtag({ id: 42, updatedAt: new Date('2026-11-22T20:37:14.123Z') });

/** The ETag header of a response that carries one ticket. */
const etagHeader = {
  ETag: {
    description: "The ticket version's strong entity tag; send it back in If-Match to update or delete only that version",
    schema: { type: 'string', example: EXAMPLE_ETAG },
  },
};

/** Optional optimistic locking on PUT and DELETE, and the 412 it leads to. */
const ifMatch = () =>
  applyDecorators(
    ApiHeader({
      name: 'if-match',
      required: false,
      description: 'Only change the ticket while it is still this version (an ETag from an earlier response, or `*`)',
      schema: { type: 'string', example: EXAMPLE_ETAG },
    }),
    ApiErrorResponse(412, 'If-Match names a version other than the current one: the ticket changed meanwhile', {
      summary: 'Stale version',
      path: ONE,
      message: messageOf(() => assertIfMatch('"42-1"', { id: 42, updatedAt: new Date('2026-11-22T20:37:14.123Z') })),
    }),
  );

const idParam = ApiParam({
  name: 'id',
  description: 'The ticket id',
  schema: { type: 'integer', format: 'int64', minimum: 1 },
  example: 42,
});

export const ApiTickets = () =>
  applyDecorators(
    ApiTags('tickets'),
    ApiProduces('application/json'),
    ApiErrorResponse(503, 'The database cannot be reached right now; retry later', {
      summary: 'Database unavailable',
      path: COLLECTION,
      message: messageOf(() => {
        throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      }),
    }),
    ApiErrorResponse(500, 'An unexpected failure (logged with its cause)'),
  );

export const ApiCreateTicket = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Create a ticket',
      description: 'Stores the ticket and publishes a CREATED event (see /asyncapi.yaml) after the commit.',
    }),
    ApiBody({ type: TicketRequest }),
    ApiCreatedResponse({ description: 'The stored ticket, with its generated id and timestamps', type: TicketResponse, headers: etagHeader }),
    bodyErrors(COLLECTION),
  );

export const ApiListTickets = () =>
  applyDecorators(
    ApiOperation({
      summary: 'List tickets',
      description: 'All tickets in ascending id order, or those matching one filter. When both filters are given only `status` applies.',
    }),
    ApiQuery({ name: 'status', required: false, enum: TicketStatus, enumName: 'TicketStatus', description: 'Only tickets in this status; empty counts as absent' }),
    ApiQuery({
      name: 'requesterEmail',
      required: false,
      type: String,
      description: 'Only tickets of this requester: the whole address, case-insensitive; empty counts as absent',
      example: 'jane.doe@example.com',
    }),
    ApiOkResponse({ description: 'The matching tickets; an empty array when none match', type: [TicketResponse] }),
    ApiErrorResponse(400, 'The status filter is not a TicketStatus', {
      summary: 'Unknown status',
      path: COLLECTION,
      message: messageOf(() => new TicketStatusFilterPipe().transform('open')),
    }),
  );

export const ApiGetTicket = () =>
  applyDecorators(
    ApiOperation({ summary: 'Read one ticket' }),
    idParam,
    ApiHeader({
      name: 'if-none-match',
      required: false,
      description: 'An ETag the client holds: when it is still current the answer is 304 without a body',
      schema: { type: 'string', example: EXAMPLE_ETAG },
    }),
    ApiOkResponse({ description: 'The ticket', type: TicketResponse, headers: etagHeader }),
    ApiNotModifiedResponse({ description: 'The ticket is still the version If-None-Match names; no body', headers: etagHeader }),
    ApiErrorResponse(400, 'The id is not a positive 64-bit integer', invalidId),
    notFound(),
  );

export const ApiReplaceTicket = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Replace a ticket',
      description:
        'A full replacement: omitted optional fields become null. Sets resolvedAt the first time the status becomes RESOLVED or CLOSED, ' +
        'advances updatedAt, and publishes an UPDATED event after the commit.',
    }),
    idParam,
    ApiBody({ type: TicketRequest }),
    ApiOkResponse({ description: 'The ticket after the update', type: TicketResponse, headers: etagHeader }),
    bodyErrors(ONE, invalidId),
    notFound(),
    ifMatch(),
  );

export const ApiDeleteTicket = () =>
  applyDecorators(
    ApiOperation({ summary: 'Delete a ticket', description: 'Removes it for good. No event is published.' }),
    idParam,
    ApiNoContentResponse({ description: 'Deleted; no body' }),
    ApiErrorResponse(400, 'The id is not a positive 64-bit integer', invalidId),
    notFound(),
    ifMatch(),
  );
