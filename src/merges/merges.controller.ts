import { Body, Controller, Headers, HttpCode, Param, Post, Req, UseGuards, UseInterceptors } from '@nestjs/common';
import type { Request } from 'express';
import { writeContext } from '../common/context/write-context.js';
import { IdPipe } from '../common/http/id.pipe.js';
import { JsonContentTypeGuard } from '../common/json-content-type.guard.js';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor.js';
import { MergeRequest, UnmergeRequest } from './dto/merge-request.dto.js';
import type { MergeResponse, UnmergeResponse } from './dto/merge-response.dto.js';
import { mergesApi } from './merges.openapi.js';
import { MergesService } from './merges.service.js';

/** Merging duplicate tickets into one, and undoing it (v2 only). */
@Controller('api/v2/tickets/:id')
@mergesApi.controller()
export class MergesController {
  constructor(private readonly merges: MergesService) {}

  @Post('merge')
  @mergesApi.merge()
  @HttpCode(200)
  @UseGuards(JsonContentTypeGuard)
  @UseInterceptors(IdempotencyInterceptor)
  merge(
    @Param('id', IdPipe) id: string,
    @Body() request: MergeRequest,
    @Req() http: Request,
    @Headers('if-match') ifMatch?: string,
  ): Promise<MergeResponse> {
    return this.merges.merge(id, request, ifMatch, writeContext(http));
  }

  @Post('unmerge')
  @mergesApi.unmerge()
  @HttpCode(200)
  @UseGuards(JsonContentTypeGuard)
  unmerge(@Param('id', IdPipe) id: string, @Body() request: UnmergeRequest, @Req() http: Request): Promise<UnmergeResponse> {
    return this.merges.unmerge(id, request.source, writeContext(http));
  }
}
