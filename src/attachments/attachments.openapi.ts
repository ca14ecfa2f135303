import { applyDecorators } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ApiIdempotencyKey, idempotentReplayedHeader } from '../idempotency/idempotency.openapi.js';
import type { QueryDialect } from '../common/paging/query-parameters.js';
import { ticketSubresourceApi } from '../tickets/ticket-subresource.openapi.js';
import { AttachmentPageResponse } from './dto/attachment-page-response.dto.js';
import { AttachmentResponse } from './dto/attachment-response.dto.js';
import { FILE_FIELD } from './attachment-upload.js';
import { rangeNotSatisfiable } from './attachment-download.js';
import { versionedOperationId } from '../docs/operation-ids.js';

const binary = { type: 'string', format: 'binary' } as const;

/** The OpenAPI description of a ticket's attachments in each version. */
export function attachmentsApi(version: QueryDialect) {
  const sub = ticketSubresourceApi(version, 'attachments');
  const attachmentId = () =>
    ApiParam({
      name: 'attachmentId',
      description: 'The attachment id',
      schema: { type: 'integer', format: 'int64', minimum: 1 },
      example: 5,
    });
  const unknownAttachment = () =>
    sub.errorResponse(404, 'No ticket has this id, or the ticket has no attachment with this id', {
      summary: 'Unknown attachment',
      path: `${sub.path}/5`,
      message: 'Attachment not found with id: 5',
    });
  return {
    controller: () => ApiTags(version === 'v1' ? 'attachments' : 'attachments v2'),
    add: () =>
      applyDecorators(
        ApiOperation({
          operationId: versionedOperationId(version, 'addAttachment'),
          summary: 'Attach a file to a ticket',
          description:
            `The file as multipart/form-data (the part \`${FILE_FIELD}\`, with its filename and type) or as the raw body ` +
            "(its Content-Type, and its name in `Content-Disposition: attachment; filename*=UTF-8''…`). Streamed into " +
            'storage, never held whole; stored with an ATTACHED history entry and an ATTACHMENT_ADDED event (routing key ' +
            'ticket.attachment.added) in one transaction. The recorded type is what the bytes are (PNG, JPEG, GIF, PDF, ' +
            'ZIP, text) when they contradict the declared one. Safe to retry with an Idempotency-Key. See docs/attachments.md.',
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: { type: 'object', required: [FILE_FIELD], properties: { [FILE_FIELD]: { ...binary, description: 'The file' } } },
              },
              'application/octet-stream': { schema: { ...binary, description: 'The file itself; any Content-Type' } },
            },
          },
        }),
        ApiHeader({
          name: 'Content-Disposition',
          required: false,
          description: "A raw upload's filename: `attachment; filename*=UTF-8''screenshot%201.png`",
          schema: { type: 'string' },
        }),
        sub.ticket({ summary: 'Empty file', path: sub.path, message: 'The attachment is empty' }),
        ApiCreatedResponse({
          description: 'The stored attachment',
          type: AttachmentResponse,
          headers: {
            Location: { description: 'Where the new attachment is', required: true, schema: { type: 'string', example: `${sub.path}/5` } },
            ...idempotentReplayedHeader,
          },
        }),
        ApiIdempotencyKey(sub.errorResponse, sub.path),
        sub.errorResponse(409, 'The ticket has ATTACHMENTS_MAX_PER_TICKET attachments already, or the Idempotency-Key is in use', {
          summary: 'Too many attachments',
          path: sub.path,
          message: 'Ticket 42 already has 100 attachments, the most it may have',
        }),
        sub.errorResponse(408, 'Less than 64 KiB of the body arrived in ATTACHMENTS_UPLOAD_IDLE_TIMEOUT_MS (10 s by default)', {
          summary: 'Too slow',
          path: sub.path,
          message: 'The upload sent less than 65536 bytes in 10000 ms',
        }),
        sub.errorResponse(413, 'The file is larger than ATTACHMENTS_MAX_FILE_SIZE (25 MiB by default)', {
          summary: 'Too large',
          path: sub.path,
          message: 'Attachment is larger than 26214400 bytes (ATTACHMENTS_MAX_FILE_SIZE)',
        }),
        sub.errorResponse(415, 'The body declares a Content-Encoding', {
          summary: 'Encoded body',
          path: sub.path,
          message: 'Content-Encoding "gzip" is not supported for uploads',
        }),
      ),
    list: () =>
      applyDecorators(
        ApiOperation({
          operationId: versionedOperationId(version, 'listAttachments'),
          summary: "A ticket's attachments, oldest first",
          description:
            version === 'v1' ? 'A plain array; with `limit`, one page of it and a Link header to the next.' : 'One page at a time.',
        }),
        sub.ticket(sub.badLimit),
        sub.paging(),
        version === 'v1'
          ? ApiOkResponse({ description: 'The attachments, oldest first', type: [AttachmentResponse], headers: sub.pageHeaders })
          : ApiOkResponse({ description: 'One page of attachments, oldest first', type: AttachmentPageResponse, headers: sub.pageHeaders }),
      ),
    get: () =>
      applyDecorators(
        ApiOperation({ operationId: versionedOperationId(version, 'getAttachment'), summary: "An attachment's metadata" }),
        sub.ticket(),
        attachmentId(),
        unknownAttachment(),
        ApiOkResponse({ description: 'The attachment', type: AttachmentResponse }),
      ),
    content: () =>
      applyDecorators(
        ApiOperation({
          operationId: versionedOperationId(version, 'getAttachmentContent'),
          summary: "An attachment's bytes",
          description:
            'Streamed. `Content-Disposition: attachment` (with filename and filename*), `X-Content-Type-Options: nosniff` and ' +
            "`Content-Security-Policy: sandbox; default-src 'none'`; `?disposition=inline` is granted to raster images, PDF and " +
            'plain text only (never HTML, SVG or XML). ETag is the quoted SHA-256 (If-None-Match → 304); one Range → 206, ' +
            'several ranges → 200 with everything.',
        }),
        sub.ticket({ summary: 'Bad disposition', path: `${sub.path}/5/content`, message: 'disposition must be "attachment" or "inline"' }),
        attachmentId(),
        ApiQuery({
          name: 'disposition',
          required: false,
          enum: ['attachment', 'inline'],
          description: 'inline: shown in the browser, for safe types only',
        }),
        ApiHeader({ name: 'Range', required: false, description: 'One byte range, e.g. `bytes=0-1023`', schema: { type: 'string' } }),
        ApiHeader({ name: 'If-None-Match', required: false, description: 'The ETag of a copy the client has', schema: { type: 'string' } }),
        unknownAttachment(),
        ApiProduces('application/octet-stream'),
        ApiOkResponse({
          description: 'The whole content, as its recorded type',
          content: { 'application/octet-stream': { schema: binary } },
          headers: {
            ETag: { description: 'The quoted SHA-256', schema: { type: 'string' } },
            'Content-Disposition': {
              description: 'attachment (or inline); filename="…"; filename*=UTF-8\'\'…',
              schema: { type: 'string' },
            },
          },
        }),
        ApiResponse({ status: 206, description: 'The requested range', content: { 'application/octet-stream': { schema: binary } } }),
        ApiResponse({ status: 304, description: 'The If-None-Match names this content' }),
        sub.errorResponse(416, 'The range lies outside the content (Content-Range: bytes */size)', {
          summary: 'Range outside the content',
          path: `${sub.path}/5/content`,
          message: rangeNotSatisfiable(48213).message,
        }),
      ),
    remove: () =>
      applyDecorators(
        ApiOperation({
          operationId: versionedOperationId(version, 'deleteAttachment'),
          summary: 'Delete an attachment',
          description: 'With a DETACHED history entry and an ATTACHMENT_DELETED event (routing key ticket.attachment.deleted).',
        }),
        sub.ticket(),
        attachmentId(),
        unknownAttachment(),
        sub.errorResponse(409, 'A comment names the attachment', {
          summary: 'Named by a comment',
          path: `${sub.path}/5`,
          message: 'Attachment 5 is named by comment 7 and cannot be deleted',
        }),
        ApiNoContentResponse({ description: 'Deleted' }),
      ),
  };
}
