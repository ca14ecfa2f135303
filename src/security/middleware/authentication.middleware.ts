import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NextFunction, Request, Response } from 'express';
import type { AppConfig } from '../../config/app-config.js';
import { describeError } from '../../common/errors/describe-error.js';
import { BearerTokenException, IssuerUnavailableException } from '../jwt/bearer-token.exception.js';
import { resolveBearerToken } from '../jwt/bearer-token.resolver.js';
import { JwtVerifier } from '../jwt/jwt-verifier.js';
import { setPrincipal } from '../../common/context/principal.js';
import { setTokenAcceptedUntil } from '../token-lifetime.js';

/**
 * Decides who a request is (Spring's BearerTokenAuthenticationFilter), on every path, in two steps (see
 * securityMiddleware): `identify` gives a request with a valid bearer token its Principal, and remembers the refusal
 * of a token that is not valid; `refuse` answers that refusal, 401 with the RFC 6750 challenge, wherever the request
 * goes, as Spring's filter does. A request without a token goes on anonymous, for authorization to judge.
 */
@Injectable()
export class AuthenticationMiddleware {
  private readonly logger = new Logger('Security');
  private readonly verifier?: JwtVerifier;
  private readonly refusals = new WeakMap<Request, unknown>();
  private issuerDown = false;

  constructor(config: ConfigService<AppConfig, true>) {
    const jwt = config.get('security', { infer: true }).jwt;
    if (jwt) this.verifier = new JwtVerifier(jwt);
  }

  get enabled(): boolean {
    return this.verifier !== undefined;
  }

  readonly identify = async (request: Request, _response: Response, next: NextFunction): Promise<void> => {
    try {
      const token = resolveBearerToken(request.headers.authorization);
      if (token !== undefined) {
        const { principal, acceptedUntil } = await this.verifier!.verify(token);
        setPrincipal(request, principal);
        setTokenAcceptedUntil(request, acceptedUntil);
        this.issuerAnswered();
      }
    } catch (error) {
      if (error instanceof IssuerUnavailableException) this.issuerFailed(error);
      this.refusals.set(request, error);
    }
    next();
  };

  readonly refuse = (request: Request, response: Response, next: NextFunction): void => {
    if (!this.refusals.has(request)) return next();
    const error = this.refusals.get(request);
    if (error instanceof BearerTokenException) response.setHeader('WWW-Authenticate', error.challenge);
    next(error);
  };

  /** One warning per outage, not one per request. */
  private issuerFailed(error: IssuerUnavailableException): void {
    if (this.issuerDown) return;
    this.issuerDown = true;
    this.logger.warn(`Bearer tokens cannot be verified, requests that carry one answer 503: ${describeError(error.reason)}`);
  }

  private issuerAnswered(): void {
    if (!this.issuerDown) return;
    this.issuerDown = false;
    this.logger.log('The token issuer answers again');
  }
}
