import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import type { Request, Response } from 'express';
import { viewerOf } from '../common/context/viewer.js';
import { writeContext } from '../common/context/write-context.js';
import { IdPipe } from '../common/http/id.pipe.js';
import { JsonContentTypeGuard } from '../common/json-content-type.guard.js';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor.js';
import { LinkRequest } from './dto/link-request.dto.js';
import type { LinkListResponse, LinkResponse } from './dto/link-response.dto.js';
import { ResolveLinkedRequest, type ResolveLinkedResponse } from './dto/resolve-linked.dto.js';
import { linksApi } from './links.openapi.js';
import { LinksService } from './links.service.js';
import { ResolveLinkedService } from './resolve-linked.service.js';

/** A ticket's links to other tickets, and a problem's incidents resolved together (v2 only). */
@Controller('api/v2/tickets/:id')
@linksApi.controller()
export class LinksController {
  constructor(
    private readonly links: LinksService,
    private readonly resolution: ResolveLinkedService,
  ) {}

  @Post('links')
  @linksApi.add()
  @UseGuards(JsonContentTypeGuard)
  @UseInterceptors(IdempotencyInterceptor)
  async add(
    @Param('id', IdPipe) id: string,
    @Body() request: LinkRequest,
    @Req() http: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<LinkResponse> {
    const link = await this.links.add(id, request, writeContext(http));
    response.setHeader('Location', `/api/v2/tickets/${id}/links/${link.id}`);
    return link;
  }

  @Get('links')
  @linksApi.list()
  list(@Param('id', IdPipe) id: string, @Req() http: Request): Promise<LinkListResponse> {
    return this.links.list(id, viewerOf(http));
  }

  @Get('links/:linkId')
  @linksApi.get()
  get(@Param('id', IdPipe) id: string, @Param('linkId', IdPipe) linkId: string, @Req() http: Request): Promise<LinkResponse> {
    return this.links.findOne(id, Number(linkId), viewerOf(http));
  }

  @Delete('links/:linkId')
  @linksApi.remove()
  @HttpCode(204)
  remove(@Param('id', IdPipe) id: string, @Param('linkId', IdPipe) linkId: string, @Req() http: Request): Promise<void> {
    return this.links.remove(id, Number(linkId), writeContext(http));
  }

  @Post('resolve-linked')
  @linksApi.resolveLinked()
  @HttpCode(200)
  @UseGuards(JsonContentTypeGuard)
  async resolveLinked(
    @Param('id', IdPipe) id: string,
    @Body() request: ResolveLinkedRequest,
    @Req() http: Request,
  ): Promise<ResolveLinkedResponse> {
    return { results: await this.resolution.resolve(id, request.status, request.comment, writeContext(http)) };
  }
}
