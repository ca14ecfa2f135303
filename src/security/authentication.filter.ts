import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NextFunction, Request, Response } from 'express';
import type { AppConfig } from '../config/app-config.js';
import { describeError } from '../common/errors/describe-error.js';
import { BearerTokenException, IssuerUnavailableException } from './bearer-token.exception.js';
import { resolveBearerToken } from './bearer-token.resolver.js';
import { JwtVerifier } from './jwt-verifier.js';
import { setPrincipal } from './principal.js';

/**
 * Decides who a request is (Spring's BearerTokenAuthenticationFilter), on every path: a request with a valid bearer
 * token gets its Principal; one without a token goes on anonymous, for authorization to judge; one with a token
 * that is refused answers 401 with the RFC 6750 challenge, wherever it goes, as Spring's filter does.
 */
@Injectable()
export class AuthenticationFilter {
  private readonly logger = new Logger('Security');
  private readonly verifier?: JwtVerifier;
  private issuerDown = false;

  constructor(config: ConfigService<AppConfig, true>) {
    const jwt = config.get('security', { infer: true }).jwt;
    if (jwt) this.verifier = new JwtVerifier(jwt);
  }

  get enabled(): boolean {
    return this.verifier !== undefined;
  }

  readonly handle = async (request: Request, response: Response, next: NextFunction): Promise<void> => {
    try {
      const token = resolveBearerToken(request.headers.authorization);
      if (token !== undefined) {
        setPrincipal(request, await this.verifier!.verify(token));
        this.issuerAnswered();
      }
      next();
    } catch (error) {
      if (error instanceof BearerTokenException) response.setHeader('WWW-Authenticate', error.challenge);
      if (error instanceof IssuerUnavailableException) this.issuerFailed(error);
      next(error);
    }
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
