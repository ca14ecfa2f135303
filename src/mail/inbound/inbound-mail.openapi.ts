import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiProblemResponse } from '../../common/errors/api-error-response.decorator.js';
import { InboundResultResponse } from './inbound-result.dto.js';

/** The OpenAPI description of POST /api/v2/inbound-email (docs/email.md). */
export const inboundMailApi = {
  controller: () => ApiTags('email v2'),
  receive: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'receiveEmail',
        summary:
          'Hand in a raw message (RFC 5322), as an MTA pipe or an inbound hook does; it becomes a ticket or a comment by the mailbox rules',
      }),
      ApiConsumes('message/rfc822'),
      ApiBody({ description: 'The whole message, headers and body, as received', schema: { type: 'string', format: 'binary' } }),
      ApiProduces('application/json'),
      ApiOkResponse({ type: InboundResultResponse, description: 'What became of the message' }),
      ApiProblemResponse(413, 'The message is larger than MAIL_MAX_MESSAGE_SIZE'),
      ApiProblemResponse(415, 'The body is not declared as message/rfc822'),
      ApiProblemResponse(503, 'The database cannot be reached right now; retry later (nothing of the message was recorded)'),
      ApiProblemResponse(500, 'An unexpected failure (logged with its cause)'),
    ),
};
