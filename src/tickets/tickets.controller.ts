import { viewerOf } from '../common/context/viewer.js';
import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Req,
  Res,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request, Response } from 'express';
import type { AppConfig } from '../config/app-config.js';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor.js';
import { JsonContentTypeGuard } from '../common/json-content-type.guard.js';
import { TicketPatch } from './dto/ticket-patch.dto.js';
import { TicketRequest } from './dto/ticket-request.dto.js';
import type { TicketResponse } from './dto/ticket-response.dto.js';
import type { TicketTransitionsResponse } from './dto/ticket-transitions-response.dto.js';
import { parseTicketQuery } from './query/ticket-query.js';
import { IdPipe } from '../common/http/id.pipe.js';
import { setPageHeaders } from '../common/paging/page-headers.js';
import { TicketsService } from './tickets.service.js';
import { sendJsonArray } from '../common/http/json-array-response.js';
import { ticketsApi } from './tickets.openapi.js';
import { writeContext } from '../common/context/write-context.js';
import { withEtag } from './ticket-etag.js';

const COLLECTION = '/api/tickets';
const api = ticketsApi('v1');

@Controller('api/tickets')
@api.tickets()
export class TicketsController {
  private readonly sla: boolean;

  constructor(
    private readonly tickets: TicketsService,
    config: ConfigService<AppConfig, true>,
  ) {
    this.sla = config.get('sla.enabled', { infer: true });
  }

  @Post()
  @api.create()
  @UseGuards(JsonContentTypeGuard)
  // A replay answers the stored response, ETag included, without running the handler.
  @UseInterceptors(IdempotencyInterceptor)
  async create(
    @Body() request: TicketRequest,
    @Req() http: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<TicketResponse> {
    const ticket = await this.tickets.create(request, writeContext(http));
    response.setHeader('Location', `${COLLECTION}/${ticket.id}`);
    return withEtag(response, ticket);
  }

  /**
   * A plain array as ever, streamed as the database returns it (decision 36); with `limit`, one page of it, with
   * Link and X-Total-Count headers.
   */
  @Get()
  @api.list()
  async findAll(@Req() request: Request, @Res() response: Response): Promise<void> {
    const query = parseTicketQuery(request.query, 'v1', this.sla);
    if (!query.page) {
      const listing = await this.tickets.stream(query, viewerOf(request));
      return sendJsonArray(request, response, listing.rows, listing.json);
    }
    const page = await this.tickets.list(query, viewerOf(request));
    setPageHeaders(response, COLLECTION, request.originalUrl, page);
    response.json(page.items);
  }

  @Get(':id')
  @api.get()
  async findOne(@Param('id', IdPipe) id: string, @Res({ passthrough: true }) response: Response): Promise<TicketResponse> {
    return withEtag(response, await this.tickets.findOne(id));
  }

  @Get(':id/transitions')
  @api.transitions()
  transitions(@Param('id', IdPipe) id: string): Promise<TicketTransitionsResponse> {
    return this.tickets.transitions(id);
  }

  @Put(':id')
  @api.replace()
  @UseGuards(JsonContentTypeGuard)
  async replace(
    @Param('id', IdPipe) id: string,
    @Body() request: TicketRequest,
    @Req() http: Request,
    @Res({ passthrough: true }) response: Response,
    @Headers('if-match') ifMatch?: string,
  ): Promise<TicketResponse> {
    return withEtag(response, await this.tickets.replace(id, request, ifMatch, writeContext(http)));
  }

  /** A JSON merge patch (application/merge-patch+json, or application/json). */
  @Patch(':id')
  @api.patch()
  @UseGuards(JsonContentTypeGuard)
  @UseInterceptors(IdempotencyInterceptor)
  async patch(
    @Param('id', IdPipe) id: string,
    @Body() patch: TicketPatch,
    @Req() http: Request,
    @Res({ passthrough: true }) response: Response,
    @Headers('if-match') ifMatch?: string,
  ): Promise<TicketResponse> {
    return withEtag(response, await this.tickets.patch(id, patch, ifMatch, writeContext(http)));
  }

  @Delete(':id')
  @api.remove()
  @HttpCode(204)
  remove(@Param('id', IdPipe) id: string, @Headers('if-match') ifMatch?: string): Promise<void> {
    return this.tickets.remove(id, ifMatch);
  }
}
