import { Controller, HttpCode, PayloadTooLargeException, Post, Req, UnsupportedMediaTypeException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request } from 'express';
import typeIs from 'type-is';
import type { AppConfig } from '../../config/app-config.js';
import { inboundMailApi as api } from './inbound-mail.openapi.js';
import { type InboundResult, InboundMailService } from './inbound-mail.service.js';

/** Reads the whole body, refusing it (413) once it passes `max` bytes. */
function body(request: Request, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    if (declared > max) return reject(tooLarge(max));
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        request.removeAllListeners('data');
        request.resume();
        reject(tooLarge(max));
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function tooLarge(max: number): PayloadTooLargeException {
  return new PayloadTooLargeException(`The message is larger than ${max} bytes (MAIL_MAX_MESSAGE_SIZE)`);
}

/** v2 only: a raw message from an MTA's pipe or a provider's inbound hook (scope mail.inbound), by the mailbox's rules. */
@Controller('api/v2/inbound-email')
@api.controller()
export class InboundMailController {
  private readonly maxSize: number;

  constructor(
    private readonly inbound: InboundMailService,
    config: ConfigService<AppConfig, true>,
  ) {
    this.maxSize = config.get('mail', { infer: true }).maxMessageSize;
  }

  @Post()
  @HttpCode(200)
  @api.receive()
  async receive(@Req() request: Request): Promise<InboundResult> {
    if (!typeIs(request, ['message/rfc822'])) {
      throw new UnsupportedMediaTypeException(
        `Content-Type ${request.headers['content-type'] ?? '(none)'} is not supported; send message/rfc822`,
      );
    }
    const raw = await body(request, this.maxSize);
    return this.inbound.receive(raw);
  }
}
