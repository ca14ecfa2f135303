import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { requiredScopes } from '../access-rules.js';
import { BearerTokenException } from '../jwt/bearer-token.exception.js';
import { hasScope, principalOf } from '../../common/context/principal.js';

/**
 * Decides what a request may do (Spring's AuthorizationFilter), after authentication: by access-rules.ts alone.
 * Anonymous where a token is needed → 401 `Bearer`; a token without the scope → 403 insufficient_scope.
 */
@Injectable()
export class AuthorizationMiddleware {
  readonly handle = (request: Request, response: Response, next: NextFunction): void => {
    const required = requiredScopes(request.method, request.path);
    const principal = principalOf(request);
    if (required === undefined || hasScope(principal, ...required.anyOf)) {
      next();
      return;
    }
    const refusal = principal === undefined ? BearerTokenException.missing() : BearerTokenException.insufficientScope(required.name);
    response.setHeader('WWW-Authenticate', refusal.challenge);
    next(refusal);
  };
}
