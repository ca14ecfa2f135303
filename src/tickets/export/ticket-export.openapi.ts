import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery } from '@nestjs/swagger';
import { ApiProblemResponse } from '../../common/errors/api-error-response.decorator.js';
import { versionedOperationId } from '../../docs/operation-ids.js';
import { ApiTicketQueryParameters } from '../ticket-query.openapi.js';

/** The OpenAPI description of GET /api/v2/tickets/export. */
export const ticketExportApi = () =>
  applyDecorators(
    ApiOperation({
      operationId: versionedOperationId('v2', 'exportTickets'),
      summary: 'Every ticket the filters match, streamed as NDJSON or CSV',
      description:
        'Every filter of the list, no cap: the tickets as of the request (one snapshot of the database, while writes go on), in id ' +
        'order, with their participants, tags and custom field values. NDJSON (default, or `Accept: application/x-ndjson`): one v2 ' +
        'ticket per line. CSV (`format=csv` or `Accept: text/csv`): RFC 4180 with a header row, one column per custom field, cells ' +
        'that a spreadsheet would take for a formula escaped. Refused (403) for a requester token (docs/api.md#export).',
    }),
    ApiQuery({ name: 'format', required: false, schema: { type: 'string', enum: ['ndjson', 'csv'] } }),
    ApiTicketQueryParameters('v2', false),
    ApiOkResponse({
      description: 'The tickets, streamed',
      content: {
        'application/x-ndjson': { schema: { type: 'string', description: 'One v2 ticket (JSON) per line' } },
        'text/csv': { schema: { type: 'string', description: 'RFC 4180, a header row first' } },
      },
    }),
    ApiProblemResponse(400, 'format or a filter is malformed or unknown, or a sort or page was given'),
    ApiProblemResponse(403, "A requester token: exports are the desk's"),
    ApiProblemResponse(503, 'The database cannot be reached right now; retry later'),
  );
