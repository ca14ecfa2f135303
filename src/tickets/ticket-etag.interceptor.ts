import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { type Observable, tap } from 'rxjs';
import type { TicketResponse } from './dto/ticket-response.dto.js';
import { ticketEtag } from './ticket-etag.js';

/**
 * Sends the ticket's own ETag with a response that carries one ticket, in place of Express's hash of the body,
 * so a client can send it back in If-Match. Express still answers If-None-Match with 304 against it.
 */
@Injectable()
export class TicketEtagInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler<TicketResponse>): Observable<TicketResponse> {
    const response = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(tap((ticket) => response.setHeader('ETag', ticketEtag(ticket))));
  }
}
