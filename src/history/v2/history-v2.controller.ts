import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { viewerOf } from '../../common/context/viewer.js';
import type { Request, Response } from 'express';
import { parseKeysetPage } from '../../common/paging/keyset-page.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import { setPageHeaders } from '../../common/paging/page-headers.js';
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
  async listHistory(
    @Param('id', IdPipe) id: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<HistoryPageResponse> {
    const page = await this.history.list(id, parseKeysetPage(request.query, 'v2', `history:${id}`, 'pageQuery'), viewerOf(request));
    setPageHeaders(response, `/api/v2/tickets/${id}/history`, request.originalUrl, { ...page, total: null });
    return page;
  }
}
