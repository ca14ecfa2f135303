import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { springFieldError } from '../common/errors/spring-field-error.js';
import { ApiIdempotencyKey, idempotentReplayedHeader } from '../idempotency/idempotency.openapi.js';
import type { QueryDialect } from '../common/paging/query-parameters.js';
import { ticketSubresourceApi } from '../tickets/ticket-subresource.openapi.js';
import { CommentRequest } from './dto/comment-request.dto.js';
import { CommentPageResponse } from './dto/comment-page-response.dto.js';
import { CommentResponse } from './dto/comment-response.dto.js';
import { versionedOperationId } from '../docs/operation-ids.js';

/** The OpenAPI description of a ticket's comments in each version. */
export function commentsApi(version: QueryDialect) {
  const sub = ticketSubresourceApi(version, 'comments');
  const blankBody = {
    summary: 'Validation failed',
    path: sub.path,
    message: "Validation failed for object='commentRequest'. Error count: 1",
    errors: [springFieldError('commentRequest', 'body', 'NotBlank', 'java.lang.String', [], 'Body is required', ' ')],
  };
  return {
    controller: () => ApiTags(version === 'v1' ? 'comments' : 'comments v2'),
    add: () =>
      applyDecorators(
        ApiOperation({
          operationId: versionedOperationId(version, 'addComment'),
          summary: 'Add a comment to a ticket',
          description:
            'Stores the comment, records a COMMENTED history entry and publishes a COMMENT_ADDED event (routing key ' +
            'ticket.comment.added, see docs/asyncapi.yaml) after the commit. Safe to retry with an Idempotency-Key.',
        }),
        sub.ticket(blankBody),
        ApiConsumes('application/json'),
        ApiBody({ type: CommentRequest }),
        ApiCreatedResponse({
          description: 'The stored comment',
          type: CommentResponse,
          headers: {
            Location: { description: 'Where the new comment is', required: true, schema: { type: 'string', example: `${sub.path}/7` } },
            ...idempotentReplayedHeader,
          },
        }),
        ApiIdempotencyKey(sub.errorResponse, sub.path),
        sub.errorResponse(413, 'The body is larger than 1 MiB'),
        sub.errorResponse(415, 'The body is not declared as JSON', {
          summary: 'Not JSON',
          path: sub.path,
          message: 'Content-Type "text/plain" is not supported',
        }),
      ),
    list: () =>
      applyDecorators(
        ApiOperation({
          operationId: versionedOperationId(version, 'listComments'),
          summary: "A ticket's comments, oldest first",
          description:
            version === 'v1' ? 'A plain array; with `limit`, one page of it and a Link header to the next.' : 'One page at a time.',
        }),
        sub.ticket(sub.badLimit),
        sub.paging(),
        version === 'v1'
          ? ApiOkResponse({ description: 'The comments, oldest first', type: [CommentResponse], headers: sub.pageHeaders })
          : ApiOkResponse({ description: 'One page of comments, oldest first', type: CommentPageResponse, headers: sub.pageHeaders }),
      ),
    get: () =>
      applyDecorators(
        ApiOperation({ operationId: versionedOperationId(version, 'getComment'), summary: 'Read one comment of a ticket' }),
        sub.ticket(),
        ApiParam({
          name: 'commentId',
          description: 'The comment id',
          schema: { type: 'integer', format: 'int64', minimum: 1 },
          example: 7,
        }),
        ApiOkResponse({ description: 'The comment', type: CommentResponse }),
      ),
  };
}
