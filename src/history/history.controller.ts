import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { parseKeysetPage } from '../common/paging/keyset-page.js';
import { IdPipe } from '../common/http/id.pipe.js';
import { setPageHeaders } from '../common/paging/page-headers.js';
import type { HistoryEntryResponse } from './dto/history-entry-response.dto.js';
import { historyApi } from './history.openapi.js';
import { HistoryService } from './history.service.js';

const api = historyApi('v1');

/** v1: a ticket's history as a plain array; with `limit`, a page of it with a Link header to the next. */
@Controller('api/tickets/:id/history')
@api.controller()
export class HistoryController {
  constructor(private readonly history: HistoryService) {}

  @Get()
  @api.list()
  async listHistory(
    @Param('id', IdPipe) id: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<HistoryEntryResponse[]> {
    const page = await this.history.list(id, parseKeysetPage(request.query, 'v1', `history:${id}`, 'pageQuery'));
    setPageHeaders(response, `/api/tickets/${id}/history`, request.originalUrl, { ...page, total: null });
    return page.items;
  }
}
