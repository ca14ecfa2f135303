import { Controller, Delete, Get, HttpCode, Param, Post, Req, Res, UseInterceptors } from '@nestjs/common';
import { viewerOf } from '../common/context/viewer.js';
import type { Request, Response } from 'express';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor.js';
import { IdempotentContent } from '../idempotency/idempotent-content.js';
import { UploadFingerprint } from './upload-fingerprint.js';
import { parseKeysetPage } from '../common/paging/keyset-page.js';
import { IdPipe } from '../common/http/id.pipe.js';
import { setPageHeaders } from '../common/paging/page-headers.js';
import { writeContext } from '../common/context/write-context.js';
import { attachmentsApi } from './attachments.openapi.js';
import { download, metadata, upload } from './attachments-http.js';
import { AttachmentsService } from './attachments.service.js';
import type { AttachmentResponse } from './dto/attachment-response.dto.js';

const api = attachmentsApi('v1');
const collection = (id: string) => `/api/tickets/${id}/attachments`;

/** v1: a ticket's attachments; the list is a plain array, paged with `limit` like the comments. */
@Controller('api/tickets/:id/attachments')
@api.controller()
export class AttachmentsController {
  constructor(private readonly attachments: AttachmentsService) {}

  @Post()
  @api.add()
  @UseInterceptors(IdempotencyInterceptor)
  @IdempotentContent(UploadFingerprint)
  addAttachment(
    @Param('id', IdPipe) id: string,
    @Req() http: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AttachmentResponse> {
    return upload(this.attachments, collection(id), id, http, response);
  }

  @Get()
  @api.list()
  async listAttachments(
    @Param('id', IdPipe) id: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AttachmentResponse[]> {
    const page = await this.attachments.list(id, parseKeysetPage(request.query, 'v1', `attachments:${id}`, 'pageQuery'), viewerOf(request));
    setPageHeaders(response, collection(id), request.originalUrl, { ...page, total: null });
    return page.items;
  }

  @Get(':attachmentId')
  @api.get()
  getAttachment(
    @Param('id', IdPipe) id: string,
    @Param('attachmentId', IdPipe) attachmentId: string,
    @Req() http: Request,
  ): Promise<AttachmentResponse> {
    return metadata(this.attachments, id, attachmentId, http);
  }

  @Get(':attachmentId/content')
  @api.content()
  getContent(
    @Param('id', IdPipe) id: string,
    @Param('attachmentId', IdPipe) attachmentId: string,
    @Req() http: Request,
    @Res() response: Response,
  ): Promise<void> {
    return download(this.attachments, id, attachmentId, http, response);
  }

  @Delete(':attachmentId')
  @api.remove()
  @HttpCode(204)
  deleteAttachment(
    @Param('id', IdPipe) id: string,
    @Param('attachmentId', IdPipe) attachmentId: string,
    @Req() http: Request,
  ): Promise<void> {
    return this.attachments.remove(id, attachmentId, writeContext(http));
  }
}
