import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ticketSubresourceApi } from '../../tickets/ticket-subresource.openapi.js';
import { NotificationPageResponse } from './notification-response.dto.js';

const sub = ticketSubresourceApi('v2', 'notifications');

/** The OpenAPI description of GET /api/v2/tickets/{id}/notifications (docs/email.md). */
export const notificationsApi = {
  controller: () => ApiTags('email v2'),
  list: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'listTicketNotifications',
        summary: "The mails about a ticket: sent, failed or waiting to be sent, with the SMTP server's last answer",
        description: 'For agents: a requester token gets 403.',
      }),
      sub.ticket(sub.badLimit),
      sub.paging(),
      sub.errorResponse(403, 'A requester token asked'),
      ApiOkResponse({ description: 'One page of notifications, oldest first', type: NotificationPageResponse, headers: sub.pageHeaders }),
    ),
};
