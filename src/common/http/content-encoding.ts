import { UnsupportedMediaTypeException } from '@nestjs/common';
import type { Request } from 'express';

/** 415 for a body encoded for transport (gzip…), which a route that reads the body's bytes as they come cannot take. */
export function assertIdentityEncoding(request: Request, what: string): void {
  const encoding = request.headers['content-encoding'];
  if (encoding && encoding.toLowerCase() !== 'identity') {
    throw new UnsupportedMediaTypeException(`Content-Encoding ${JSON.stringify(encoding)} is not supported for ${what}`);
  }
}
