import type { Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';

/**
 * What identifies a request's body when it is a stream read only as the write runs (an upload), so that it cannot be
 * hashed before the key is claimed: the write records it with its response (IdempotencyService.finishCreated), and a
 * retry's is read from its body to compare (the same: replay; another: 422).
 */
export interface ContentFingerprint {
  /** Reads the request's body to its end and answers what identifies it, as the write records it. */
  of(request: Request): Promise<unknown>;
}

/** On a route with IdempotencyInterceptor: its body is identified by this provider's fingerprint, read after the claim. */
export const IdempotentContent = Reflector.createDecorator<Type<ContentFingerprint>>();
