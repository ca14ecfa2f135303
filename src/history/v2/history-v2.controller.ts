import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { parseKeysetPage } from '../../tickets/query/keyset-page.js';
import { TicketIdPipe } from '../../tickets/ticket-id.pipe.js';
import { setPageHeaders } from '../../tickets/ticket-page-headers.js';
import type { HistoryPageResponse } from '../dto/history-page-response.dto.js';
import { historyApi } from '../history.openapi.js';
import { HistoryService } from '../history.service.js';

const api = historyApi('v2');

/** v2: a ticket's history a page at a time, in an envelope; problem+json errors. */
@Controller('api/v2/tickets/:id/history')
@api.controller()
export class HistoryV2Controller {
  constructor(private readonly history: HistoryService) {}

  @Get()
  @api.list()
  async listHistory(@Param('id', TicketIdPipe) id: string, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<HistoryPageResponse> {
    const page = await this.history.list(id, parseKeysetPage(request.query, 'v2', `history:${id}`, 'pageQuery'));
    setPageHeaders(response, `/api/v2/tickets/${id}/history`, request.originalUrl, { ...page, total: null });
    return page;
  }
}
