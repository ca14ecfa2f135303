import { BadRequestException, type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, type Type } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { catchError, from, map, mergeMap, type Observable, of, throwError } from 'rxjs';
import { isPastDeadline } from '../database/request-deadline.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, idempotencyKey, requestHash } from './idempotency-key.js';
import { differentRequest, IdempotencyService, type StoredResponse } from './idempotency.service.js';
import { type ContentFingerprint, IdempotentContent } from './idempotent-content.js';
import { principalOf } from '../common/context/principal.js';
import { setIdempotencyClaim } from '../common/context/write-context.js';

/** The scope of keys sent while authentication is off. */
const ANONYMOUS_SCOPE = '';

/**
 * Idempotency-Key on a create or a PATCH: without the header nothing changes. With it, the first request claims the key
 * and runs; a retry of the same request answers the stored response (`Idempotent-Replayed: true`) without
 * running; a failure drops the claim, so nothing of it is stored. On a route whose body is read only as the write
 * runs (IdempotentContent), a retry's body is read and fingerprinted before the stored response is replayed.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly reflector: Reflector,
    private readonly modules: ModuleRef,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    const header = request.headers['idempotency-key'];
    if (header === undefined) return next.handle();
    const key = idempotencyKey(header);
    const path = request.path.replace(/\/+$/, '');
    const requestHashOf = (body: unknown) => requestHash(request.method, path, body);
    const hash = requestHashOf(request.body);
    const fingerprint = this.reflector.get(IdempotentContent, context.getHandler());
    // Keys belong to the client that sent them: one client's key never replays another's response. A token that
    // names no client has no scope of its own to keep keys in.
    const principal = principalOf(request);
    if (principal !== undefined && principal.subject === undefined) {
      throw new BadRequestException(
        `${IDEMPOTENCY_KEY_HEADER} needs a token that names its client (sub, client_id or azp): keys are kept per client`,
      );
    }
    const scope = principal?.subject ?? ANONYMOUS_SCOPE;
    const locationOf = (id: number) => `${path}/${id}`;
    return from(this.idempotency.start(scope, key, hash, { locationOf, requestHashOf }, fingerprint !== undefined)).pipe(
      mergeMap((started) => {
        if ('replay' in started) {
          if (!fingerprint) return of(replay(response, started.replay));
          return from(this.contentOf(fingerprint, request)).pipe(
            map((content) => {
              if (requestHashOf(content) !== started.requestHash) throw differentRequest(key);
              return replay(response, started.replay);
            }),
          );
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

  private contentOf(fingerprint: Type<ContentFingerprint>, request: Request): Promise<unknown> {
    return this.modules.get(fingerprint, { strict: false }).of(request);
  }
}

/** The stored response, marked as replayed; its body for Nest to send. */
function replay(response: Response, { status, body, location, etag }: StoredResponse): unknown {
  response.status(status).setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
  if (location) response.setHeader('Location', location);
  if (etag) response.setHeader('ETag', etag);
  return JSON.parse(body);
}
