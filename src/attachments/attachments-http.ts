import type { Request, Response } from 'express';
import { viewerOf } from '../common/context/viewer.js';
import { writeContext } from '../common/context/write-context.js';
import { checkUploadHeaders, discardRest, incomingFile } from './attachment-upload.js';
import { prepareDownload, streamContent } from './attachment-download.js';
import { responseOf } from './attachments.repository.js';
import type { AttachmentsService } from './attachments.service.js';
import type { AttachmentResponse } from './dto/attachment-response.dto.js';

/**
 * What the v1 and v2 controllers do alike (they differ in paths, the list's shape and the error shape): an upload
 * that stops early reads and drops the rest of the body, so the client gets the error; a download streams.
 */
export async function upload(
  attachments: AttachmentsService,
  collection: string,
  id: string,
  http: Request,
  response: Response,
): Promise<AttachmentResponse> {
  try {
    checkUploadHeaders(http, attachments.maxFileSize);
    const attachment = await attachments.add(id, () => incomingFile(http), writeContext(http));
    response.setHeader('Location', `${collection}/${attachment.id}`);
    return attachment;
  } catch (error) {
    // The connection ends with the answer: the rest of the body, however long or slow, is not waited for.
    response.setHeader('Connection', 'close');
    discardRest(http);
    throw error;
  }
}

export async function metadata(
  attachments: AttachmentsService,
  id: string,
  attachmentId: string,
  http: Request,
): Promise<AttachmentResponse> {
  return responseOf(await attachments.findOne(id, attachmentId, viewerOf(http)));
}

export async function download(
  attachments: AttachmentsService,
  id: string,
  attachmentId: string,
  http: Request,
  response: Response,
): Promise<void> {
  const attachment = await attachments.findOne(id, attachmentId, viewerOf(http));
  const part = prepareDownload(http, response, attachment);
  if (!part) return;
  if (http.method === 'HEAD') {
    // The headers a GET would send, without reading the content.
    response.setHeader('Content-Length', String(part.end - part.start + 1));
    response.end();
    return;
  }
  await streamContent(response, part, attachments.content(attachment, part.start, part.end));
}
