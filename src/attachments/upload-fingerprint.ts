import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request } from 'express';
import type { AppConfig } from '../config/app-config.js';
import type { AttachmentsConfig } from '../config/attachments-config.js';
import type { ContentFingerprint } from '../idempotency/idempotent-content.js';
import { checkUploadHeaders, discardRest, type IncomingFile, incomingFile } from './attachment-upload.js';
import { type ReceivedContent, receiveContent } from './content-receiver.js';
import type { ContentWriter } from './storage/attachment-storage.js';

/** What makes two uploads the same for an Idempotency-Key: the file's bytes, name and declared type, however sent. */
export function uploadContent(file: IncomingFile, received: ReceivedContent): unknown {
  return { sha256: received.sha256, filename: file.filename ?? null, type: file.declaredType ?? null };
}

/** Stores nothing: a retry's bytes are only hashed. */
const DISCARD: ContentWriter = {
  write: async () => undefined,
  finish: async () => undefined,
  committed: async () => undefined,
  abandon: async () => undefined,
};

/**
 * A retried upload's fingerprint, read from its body with the upload's limits (size, pace) and stored nowhere; the
 * same file replays the first answer, another one is a 422.
 */
@Injectable()
export class UploadFingerprint implements ContentFingerprint {
  private readonly config: AttachmentsConfig;

  constructor(config: ConfigService<AppConfig, true>) {
    this.config = config.get('attachments', { infer: true });
  }

  async of(request: Request): Promise<unknown> {
    try {
      checkUploadHeaders(request, this.config.maxFileSize);
      const file = await incomingFile(request);
      const received = await receiveContent(file, DISCARD, this.config.maxFileSize, this.config.uploadIdleTimeoutMs);
      await file.ended;
      return uploadContent(file, received);
    } catch (error) {
      // As after a failed upload: the answer closes the connection, the rest of the body is not waited for.
      request.res?.setHeader('Connection', 'close');
      discardRest(request);
      throw error;
    }
  }
}
