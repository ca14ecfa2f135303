import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiProblemResponse } from '../../common/errors/api-error-response.decorator.js';
import { versionedOperationId } from '../../docs/operation-ids.js';
import { ApiTicketQueryParameters } from '../ticket-query.openapi.js';
import { TicketSlaFiguresResponse } from './ticket-sla-figures.dto.js';

/** The OpenAPI description of GET /api/v2/tickets/stats/sla. */
export const ticketSlaFiguresApi = () =>
  applyDecorators(
    ApiOperation({
      operationId: versionedOperationId('v2', 'ticketSlaFigures'),
      summary: 'How the tickets the filters match fared against their SLA goals, by metric and priority',
      description:
        'Every filter of the list. For each metric and priority: the tickets with its clock, how many completed it, met it and ' +
        'breached it, the share that met it, and the median and 90th percentile of business time to first response and to ' +
        'resolution over those completed (docs/api.md#numbers-a-desk-reports-on). Refused (403) for a requester token.',
    }),
    ApiTicketQueryParameters('v2', false),
    ApiOkResponse({ description: 'The figures', type: TicketSlaFiguresResponse }),
    ApiProblemResponse(400, 'A filter is malformed or unknown, or a sort or page parameter is given'),
    ApiProblemResponse(403, "A requester token: the numbers are the desk's"),
    ApiProblemResponse(404, 'SLA clocks are off (SLA_ENABLED=false)'),
    ApiProblemResponse(503, 'The database cannot be reached right now; retry later'),
  );
