import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { QueryDialect } from '../common/paging/query-parameters.js';
import { ticketSubresourceApi } from '../tickets/ticket-subresource.openapi.js';
import { HistoryEntryResponse } from './dto/history-entry-response.dto.js';
import { HistoryPageResponse } from './dto/history-page-response.dto.js';
import { versionedOperationId } from '../docs/operation-ids.js';

/** The OpenAPI description of a ticket's history in each version. */
export function historyApi(version: QueryDialect) {
  const sub = ticketSubresourceApi(version, 'history');
  return {
    controller: () => ApiTags(version === 'v1' ? 'history' : 'history v2'),
    list: () =>
      applyDecorators(
        ApiOperation({
          operationId: versionedOperationId(version, 'listHistory'),
          summary: "A ticket's history (audit trail), oldest first",
          description:
            'One entry per write of the ticket (create, PUT, PATCH, comment), recorded in the same transaction as the write. ' +
            (version === 'v1' ? 'A plain array; with `limit`, one page of it and a Link header to the next.' : 'One page at a time.'),
        }),
        sub.ticket(sub.badLimit),
        sub.paging(),
        version === 'v1'
          ? ApiOkResponse({ description: 'The entries, oldest first', type: [HistoryEntryResponse], headers: sub.pageHeaders })
          : ApiOkResponse({ description: 'One page of entries, oldest first', type: HistoryPageResponse, headers: sub.pageHeaders }),
      ),
  };
}
