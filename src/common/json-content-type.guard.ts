import { type CanActivate, type ExecutionContext, Injectable, UnsupportedMediaTypeException } from '@nestjs/common';
import type { Request } from 'express';
import typeIs from 'type-is';

/** The media types a JSON body may be declared as (Spring's Jackson converter takes the same). */
export const JSON_MEDIA_TYPES = ['application/json', 'application/*+json'];

/** POST and PUT bodies must be declared as JSON; anything else is 415, checked before the body is validated. */
@Injectable()
export class JsonContentTypeGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    const declared = request.headers['content-type'];
    // The declared type itself, not request.is(): that answers null for a request without a body (neither
    // Content-Length nor Transfer-Encoding), which then counts as an empty body, as Content-Length: 0 does.
    if (declared && typeIs.is(declared, JSON_MEDIA_TYPES)) return true;
    throw new UnsupportedMediaTypeException(
      declared ? `Content-Type ${JSON.stringify(declared)} is not supported` : 'Content-Type is missing; application/json is required',
    );
  }
}
