import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiProblemResponse } from '../common/errors/api-error-response.decorator.js';
import { versionedOperationId } from '../docs/operation-ids.js';
import { MergeResponse, UnmergeResponse } from './dto/merge-response.dto.js';

const unavailable = () => ApiProblemResponse(503, 'The database cannot be reached right now; retry later');
const requester = () => ApiProblemResponse(403, "A requester token: merging is the desk's");
const target = () => ApiParam({ name: 'id', description: 'The target: the ticket that stays', schema: { type: 'integer', minimum: 1 } });

/** The OpenAPI description of merging tickets (docs/api.md#merge). */
export const mergesApi = {
  controller: () => ApiTags('merge v2'),
  merge: () =>
    applyDecorators(
      ApiOperation({
        operationId: versionedOperationId('v2', 'mergeTickets'),
        summary: 'Merge duplicates into this ticket',
        description:
          'In one transaction: each source is CLOSED (under either workflow, recorded as a merge), answers `mergedInto` and gets a ' +
          '`duplicate-of` link to the target; the target gains the sources’ requesters and participants as its participants, lists ' +
          'their comments and attachments beside its own, and gets an internal comment naming what was merged. Writes to a source ' +
          'are then refused with 409. MERGED history entries and events (routing key ticket.merged) for every ticket, and UPDATED ' +
          'for each. Honours Idempotency-Key; If-Match names the target.',
      }),
      target(),
      ApiOkResponse({ description: 'The merge', type: MergeResponse }),
      ApiProblemResponse(400, 'The body is malformed, or names no source'),
      requester(),
      ApiProblemResponse(404, 'A ticket does not exist'),
      ApiProblemResponse(409, 'A source is the target or is merged already, or the target is merged'),
      ApiProblemResponse(412, 'If-Match does not name the target as it is'),
      unavailable(),
    ),
  unmerge: () =>
    applyDecorators(
      ApiOperation({
        operationId: versionedOperationId('v2', 'unmergeTicket'),
        summary: 'Undo the merge of one source into this ticket',
        description:
          'Within TICKETS_UNMERGE_WINDOW of the merge: the source gets back the status and resolution time it had, the link the ' +
          'merge added goes, the target loses the participants only that source brought and no longer lists its comments and ' +
          'attachments. UNMERGED history entries and events (routing key ticket.unmerged) for both, and UPDATED for each.',
      }),
      target(),
      ApiOkResponse({ description: 'The merge undone', type: UnmergeResponse }),
      ApiProblemResponse(400, 'The body is malformed'),
      requester(),
      ApiProblemResponse(404, 'A ticket does not exist'),
      ApiProblemResponse(409, 'The source is not merged into this ticket, or was merged longer ago than the window'),
      unavailable(),
    ),
};
