import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isRequester, viewerOf } from '../../common/context/viewer.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import { keysetPage, parseKeysetPage } from '../../common/paging/keyset-page.js';
import { setPageHeaders } from '../../common/paging/page-headers.js';
import { requesterMayNot } from '../../people/requester-writes.js';
import { TicketsService } from '../../tickets/tickets.service.js';
import { MailNotificationsRepository } from './mail-notifications.repository.js';
import type { NotificationPageResponse } from './notification-response.dto.js';
import { notificationsApi as api } from './notifications.openapi.js';

/** v2: the mails about a ticket (docs/email.md), for the desk. */
@Controller('api/v2/tickets/:id/notifications')
@api.controller()
export class NotificationsController {
  constructor(
    private readonly notifications: MailNotificationsRepository,
    private readonly tickets: TicketsService,
  ) {}

  @Get()
  @api.list()
  async list(
    @Param('id', IdPipe) id: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<NotificationPageResponse> {
    if (isRequester(viewerOf(request))) throw requesterMayNot("read a ticket's notifications");
    const page = parseKeysetPage(request.query, 'v2', `notifications:${id}`, 'pageQuery');
    const rows = await this.notifications.ofTicket(id, page.afterId ?? 0, page.limit! + 1);
    if (rows.length === 0) await this.tickets.findOne(id);
    const listed = keysetPage(rows, page);
    setPageHeaders(response, `/api/v2/tickets/${id}/notifications`, request.originalUrl, { ...listed, total: null });
    return listed;
  }
}
