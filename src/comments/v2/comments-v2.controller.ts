import { Body, Controller, Get, Param, Post, Req, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import { viewerOf } from '../../common/context/viewer.js';
import type { Request, Response } from 'express';
import { IdempotencyInterceptor } from '../../idempotency/idempotency.interceptor.js';
import { JsonContentTypeGuard } from '../../common/json-content-type.guard.js';
import { parseKeysetPage } from '../../common/paging/keyset-page.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import { setPageHeaders } from '../../common/paging/page-headers.js';
import { writeContext } from '../../common/context/write-context.js';
import { commentsApi } from '../comments.openapi.js';
import { CommentsService } from '../comments.service.js';
import { CommentRequest } from '../dto/comment-request.dto.js';
import type { CommentPageResponse } from '../dto/comment-page-response.dto.js';
import type { CommentResponse } from '../dto/comment-response.dto.js';

const api = commentsApi('v2');

/** v2: a ticket's comments; the list is a page envelope (50 by default); problem+json errors. */
@Controller('api/v2/tickets/:id/comments')
@api.controller()
export class CommentsV2Controller {
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
    response.setHeader('Location', `/api/v2/tickets/${id}/comments/${comment.id}`);
    return comment;
  }

  @Get()
  @api.list()
  async listComments(
    @Param('id', IdPipe) id: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CommentPageResponse> {
    const page = await this.comments.list(id, parseKeysetPage(request.query, 'v2', `comments:${id}`, 'pageQuery'), viewerOf(request));
    setPageHeaders(response, `/api/v2/tickets/${id}/comments`, request.originalUrl, { ...page, total: null });
    return page;
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
