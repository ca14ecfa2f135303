import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { QueryDialect } from '../common/paging/query-parameters.js';
import { ticketSubresourceApi } from '../tickets/ticket-subresource.openapi.js';
import { SlaResponse } from './dto/sla-response.dto.js';
import { SLA_OFF_MESSAGE } from './sla.service.js';
import { versionedOperationId } from '../docs/operation-ids.js';

/** The OpenAPI description of a ticket's SLA clocks in each version. */
export function slaApi(version: QueryDialect) {
  const sub = ticketSubresourceApi(version, 'sla');
  return {
    controller: () => ApiTags(version === 'v1' ? 'sla' : 'sla v2'),
    get: () =>
      applyDecorators(
        ApiOperation({
          operationId: versionedOperationId(version, 'getTicketSla'),
          summary: "A ticket's SLA clocks (Jira Service Management's shape)",
          description:
            'Each metric (firstResponse, resolution) with its ongoing cycle and its completed ones: start, breach time, elapsed and ' +
            'remaining business time (negative once breached), paused, within calendar hours. With SLA_ENABLED=false the answer is a 404 ' +
            `saying "${SLA_OFF_MESSAGE}". A ticket created while SLA was off has no clocks: an empty list of cycles per metric.`,
        }),
        sub.ticket(),
        ApiOkResponse({ description: "The ticket's clocks", type: SlaResponse }),
      ),
  };
}
