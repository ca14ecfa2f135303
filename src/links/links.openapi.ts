import { applyDecorators } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiProblemResponse } from '../common/errors/api-error-response.decorator.js';
import { versionedOperationId } from '../docs/operation-ids.js';
import { LinkListResponse, LinkResponse } from './dto/link-response.dto.js';
import { ResolveLinkedResponse } from './dto/resolve-linked.dto.js';

const unavailable = () => ApiProblemResponse(503, 'The database cannot be reached right now; retry later');
const requester = () => ApiProblemResponse(403, "A requester token: links are the desk's");
const ticket = () => ApiParam({ name: 'id', description: 'The ticket', schema: { type: 'integer', minimum: 1 } });

/** The OpenAPI description of a ticket's links (docs/api.md#links). */
export const linksApi = {
  controller: () => ApiTags('links v2'),
  add: () =>
    applyDecorators(
      ApiOperation({
        operationId: versionedOperationId('v2', 'addLink'),
        summary: 'Link the ticket to another',
        description:
          'Stored once and shown from both tickets with the type as each sees it; a LINKED history entry and event (routing key ' +
          'ticket.linked) for each. Honours Idempotency-Key. A `parent-of` or `causes` link that would close a cycle is refused ' +
          '(409 naming the path).',
      }),
      ticket(),
      ApiCreatedResponse({ description: 'The link as this ticket sees it; Location names it', type: LinkResponse }),
      ApiProblemResponse(400, 'The body is malformed, or the ticket is linked to itself'),
      requester(),
      ApiProblemResponse(404, 'Either ticket does not exist'),
      ApiProblemResponse(409, 'The link exists already, or would close a cycle'),
      unavailable(),
    ),
  list: () =>
    applyDecorators(
      ApiOperation({ operationId: versionedOperationId('v2', 'listLinks'), summary: "The ticket's links, oldest first" }),
      ticket(),
      ApiOkResponse({ description: 'Each link as this ticket sees it', type: LinkListResponse }),
      requester(),
      ApiProblemResponse(404, 'No such ticket'),
      unavailable(),
    ),
  get: () =>
    applyDecorators(
      ApiOperation({ operationId: versionedOperationId('v2', 'getLink'), summary: "One of the ticket's links, as this ticket sees it" }),
      ticket(),
      ApiParam({ name: 'linkId', schema: { type: 'integer', minimum: 1 } }),
      ApiOkResponse({ description: 'The link', type: LinkResponse }),
      requester(),
      ApiProblemResponse(404, 'No such ticket, or no such link of it'),
      unavailable(),
    ),
  remove: () =>
    applyDecorators(
      ApiOperation({
        operationId: versionedOperationId('v2', 'removeLink'),
        summary: 'Remove a link (from either of its tickets)',
        description: 'An UNLINKED history entry and event (routing key ticket.unlinked) for each ticket.',
      }),
      ticket(),
      ApiParam({ name: 'linkId', schema: { type: 'integer', minimum: 1 } }),
      ApiNoContentResponse({ description: 'Removed' }),
      requester(),
      ApiProblemResponse(404, 'No such ticket, or no such link of it'),
      unavailable(),
    ),
  resolveLinked: () =>
    applyDecorators(
      ApiOperation({
        operationId: versionedOperationId('v2', 'resolveLinked'),
        summary: 'Move every incident the problem causes to a status, together',
        description:
          'Each ticket this one `causes` is changed by a PATCH of its own (workflow, history, events and SLA as any PATCH), then ' +
          'given the comment (public) when one is given; one refused leaves the others moved. The answer lists each.',
      }),
      ticket(),
      ApiOkResponse({ description: 'What became of each incident', type: ResolveLinkedResponse }),
      ApiProblemResponse(400, 'The body is malformed'),
      requester(),
      ApiProblemResponse(404, 'No such ticket'),
      unavailable(),
    ),
};
