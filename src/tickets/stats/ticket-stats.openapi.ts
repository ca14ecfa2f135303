import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery } from '@nestjs/swagger';
import { ApiProblemResponse } from '../../common/errors/api-error-response.decorator.js';
import { versionedOperationId } from '../../docs/operation-ids.js';
import { ApiTicketQueryParameters } from '../ticket-query.openapi.js';
import { TicketStatsResponse } from './ticket-stats.dto.js';

/** The OpenAPI description of GET /api/v2/tickets/stats. */
export const ticketStatsApi = () =>
  applyDecorators(
    ApiOperation({
      operationId: versionedOperationId('v2', 'ticketStats'),
      summary: 'The tickets the filters match, counted by one or two keys',
      description:
        "Every filter of the list; `total` is the list's total for the same filters, and each group's count that of the list filtered " +
        'by its values too where the list can filter by them (docs/api.md#numbers-a-desk-reports-on); the 1,000 largest groups. ' +
        'Refused (403) for a requester token.',
    }),
    ApiQuery({
      name: 'groupBy',
      required: true,
      description:
        'One or two of status, priority, assignedTo, requesterDomain, tag, field.<key> (a text, enum, boolean or multi_enum field), ' +
        'createdAt:<unit> and resolvedAt:<unit> (unit day, week (from Monday) or month, in `zone`; at most one of these, over at most ' +
        '1,000 of its units), comma-separated',
      schema: { type: 'string', example: 'createdAt:week,priority' },
    }),
    ApiQuery({
      name: 'zone',
      required: false,
      description: "The IANA time zone a time key's days, weeks and months are in",
      schema: { type: 'string', default: 'UTC', example: 'Europe/Berlin' },
    }),
    ApiTicketQueryParameters('v2', false),
    ApiOkResponse({ description: 'The counts', type: TicketStatsResponse }),
    ApiProblemResponse(400, 'groupBy or a filter is malformed or unknown'),
    ApiProblemResponse(403, "A requester token: the numbers are the desk's"),
    ApiProblemResponse(503, 'The database cannot be reached right now; retry later'),
  );
