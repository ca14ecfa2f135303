import { Body, Controller, Get, Param, Post, Req, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import { viewerOf } from '../common/context/viewer.js';
import type { Request, Response } from 'express';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor.js';
import { JsonContentTypeGuard } from '../common/json-content-type.guard.js';
import { parseKeysetPage } from '../common/paging/keyset-page.js';
import { IdPipe } from '../common/http/id.pipe.js';
import { setPageHeaders } from '../common/paging/page-headers.js';
import { writeContext } from '../common/context/write-context.js';
import { commentsApi } from './comments.openapi.js';
import { CommentsService } from './comments.service.js';
import { commentJson } from './comments.repository.js';
import { sendJsonArray } from '../common/http/json-array-response.js';
import { CommentRequest } from './dto/comment-request.dto.js';
import type { CommentResponse } from './dto/comment-response.dto.js';

const api = commentsApi('v1');

/** v1: a ticket's comments; the list is a plain array, paged with `limit` like the ticket list. */
@Controller('api/tickets/:id/comments')
@api.controller()
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  @Post()
  @api.add()
  @UseGuards(JsonContentTypeGuard)
  @UseInterceptors(IdempotencyInterceptor)
  async addComment(
    @Param('id', IdPipe) id: string,
    @Body() request: CommentRequest,
    @Req() http: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CommentResponse> {
    const comment = await this.comments.add(id, request, writeContext(http));
    response.setHeader('Location', `/api/tickets/${id}/comments/${comment.id}`);
    return comment;
  }

  /** Without `limit`, streamed as the database returns it (decision 36). */
  @Get()
  @api.list()
  async listComments(@Param('id', IdPipe) id: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    const page = parseKeysetPage(request.query, 'v1', `comments:${id}`, 'pageQuery');
    if (page.limit === undefined)
      return sendJsonArray(request, response, await this.comments.stream(id, page, viewerOf(request)), commentJson);
    const listed = await this.comments.list(id, page, viewerOf(request));
    setPageHeaders(response, `/api/tickets/${id}/comments`, request.originalUrl, { ...listed, total: null });
    response.json(listed.items);
  }

  @Get(':commentId')
  @api.get()
  getComment(
    @Param('id', IdPipe) id: string,
    @Param('commentId', IdPipe) commentId: string,
    @Req() request: Request,
  ): Promise<CommentResponse> {
    return this.comments.findOne(id, commentId, viewerOf(request));
  }
}
