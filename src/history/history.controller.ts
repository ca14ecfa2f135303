import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { viewerOf } from '../common/context/viewer.js';
import type { Request, Response } from 'express';
import { parseKeysetPage } from '../common/paging/keyset-page.js';
import { IdPipe } from '../common/http/id.pipe.js';
import { setPageHeaders } from '../common/paging/page-headers.js';
import { sendJsonArray } from '../common/http/json-array-response.js';
import { v1HistoryEntry, v1HistoryJson } from './history.repository.js';
import { historyApi } from './history.openapi.js';
import { HistoryService } from './history.service.js';

const api = historyApi('v1');

/** v1: a ticket's history as a plain array; with `limit`, a page of it with a Link header to the next. */
@Controller('api/tickets/:id/history')
@api.controller()
export class HistoryController {
  constructor(private readonly history: HistoryService) {}

  /** Without `limit`, streamed as the database returns it (decision 36). */
  @Get()
  @api.list()
  async listHistory(@Param('id', IdPipe) id: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    const page = parseKeysetPage(request.query, 'v1', `history:${id}`, 'pageQuery');
    if (page.limit === undefined)
      return sendJsonArray(request, response, await this.history.stream(id, page, viewerOf(request)), v1HistoryJson);
    const listed = await this.history.list(id, page, viewerOf(request));
    setPageHeaders(response, `/api/tickets/${id}/history`, request.originalUrl, { ...listed, total: null });
    response.json(listed.items.map(v1HistoryEntry));
  }
}
