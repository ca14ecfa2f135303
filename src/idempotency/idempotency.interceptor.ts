import { BadRequestException, type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { catchError, from, mergeMap, type Observable, of, throwError } from 'rxjs';
import { isPastDeadline } from '../database/request-deadline.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, idempotencyKey, requestHash } from './idempotency-key.js';
import { IdempotencyService } from './idempotency.service.js';
import { principalOf } from '../common/context/principal.js';
import { setIdempotencyClaim } from '../common/context/write-context.js';

/** The scope of keys sent while authentication is off. */
const ANONYMOUS_SCOPE = '';

/**
 * Idempotency-Key on a create or a PATCH: without the header nothing changes. With it, the first request claims the key
 * and runs; a retry of the same request answers the stored response (`Idempotent-Replayed: true`) without
 * running; a failure drops the claim, so nothing of it is stored.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly idempotency: IdempotencyService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    const header = request.headers['idempotency-key'];
    if (header === undefined) return next.handle();
    const key = idempotencyKey(header);
    const path = request.path.replace(/\/+$/, '');
    const hash = requestHash(request.method, path, request.body);
    // Keys belong to the client that sent them: one client's key never replays another's response. A token that
    // names no client has no scope of its own to keep keys in.
    const principal = principalOf(request);
    if (principal !== undefined && principal.subject === undefined) {
      throw new BadRequestException(
        `${IDEMPOTENCY_KEY_HEADER} needs a token that names its client (sub, client_id or azp): keys are kept per client`,
      );
    }
    const scope = principal?.subject ?? ANONYMOUS_SCOPE;
    return from(this.idempotency.start(scope, key, hash, (id) => `${path}/${id}`)).pipe(
      mergeMap((started) => {
        if ('replay' in started) {
          const { status, body, location, etag } = started.replay;
          response.status(status).setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
          if (location) response.setHeader('Location', location);
          if (etag) response.setHeader('ETag', etag);
          return of(JSON.parse(body));
        }
        setIdempotencyClaim(request, started.claim);
        const abandon = () => this.idempotency.abandon(started.claim).catch(() => undefined);
        // A write that already finished the key keeps it (abandon deletes only a started row with this claim's token).
        return next.handle().pipe(
          catchError((error) => {
            // Past the database deadline the write may still hold the key's row until it rolls back: the 503 does
            // not wait for that. Any other failure is over, and its key is given up before the answer, so that
            // a corrected retry finds it free.
            if (isPastDeadline(error)) {
              void abandon();
              return throwError(() => error);
            }
            return from(abandon()).pipe(mergeMap(() => throwError(() => error)));
          }),
        );
      }),
    );
  }
}
