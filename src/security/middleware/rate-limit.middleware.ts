import { HttpException, HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NextFunction, Request, Response } from 'express';
import type { AppConfig } from '../../config/app-config.js';
import type { RateLimitConfig } from '../../config/security-config.js';
import { describeError } from '../../common/errors/describe-error.js';
import { addressKey } from '../client-address.js';
import { principalOf } from '../../common/context/principal.js';
import type { RateLimitStore } from '../rate-limit.store.js';

export const RATE_LIMIT_STORE = Symbol('RateLimitStore');

/** Kubernetes and monitoring must always reach the actuator. */
const NEVER_LIMITED = /^\/actuator(?:\/|$)/i;

/** The one policy's name in the headers. */
const POLICY = '"default"';

/**
 * `RATE_LIMIT_REQUESTS` per `RATE_LIMIT_WINDOW_SECONDS` for each client: the token's subject, or else the client
 * address. Answers carry the fields of draft-ietf-httpapi-ratelimit-headers-10 (`RateLimit-Policy` and
 * `RateLimit`); past the limit a 429 with `Retry-After`. When the counters cannot be reached the request is served
 * uncounted (fail open): an outage of Redis must not become an outage of the API.
 *
 * Two steps (see securityMiddleware): `count` before any refusal, so requests with a refused token, CORS refusals and
 * preflights are counted too; `enforce` after CORS, so a 429 to an allowed origin carries its CORS headers.
 */
@Injectable()
export class RateLimitMiddleware {
  private readonly logger = new Logger('RateLimit');
  private readonly limit?: RateLimitConfig;
  private readonly exceeded = new WeakSet<Request>();
  private storeDown = false;

  constructor(
    config: ConfigService<AppConfig, true>,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
  ) {
    const security = config.get('security', { infer: true });
    this.limit = security.rateLimit;
  }

  get enabled(): boolean {
    return this.limit !== undefined;
  }

  readonly count = async (request: Request, response: Response, next: NextFunction): Promise<void> => {
    const { requests, windowSeconds } = this.limit!;
    if (NEVER_LIMITED.test(request.path)) return next();
    let hit;
    try {
      hit = await this.store.hit(this.clientKey(request), windowSeconds * 1_000);
    } catch (error) {
      this.storeFailed(error);
      return next();
    }
    this.storeAnswered();
    const resetSeconds = Math.max(1, Math.ceil(hit.resetMs / 1_000));
    response.setHeader('RateLimit-Policy', `${POLICY};q=${requests};w=${windowSeconds}`);
    response.setHeader('RateLimit', `${POLICY};r=${Math.max(0, requests - hit.count)};t=${resetSeconds}`);
    if (hit.count > requests) {
      response.setHeader('Retry-After', String(resetSeconds));
      this.exceeded.add(request);
    }
    next();
  };

  readonly enforce = (request: Request, _response: Response, next: NextFunction): void => {
    if (!this.exceeded.has(request)) return next();
    const { requests, windowSeconds } = this.limit!;
    next(new HttpException(`Rate limit exceeded: at most ${requests} requests per ${windowSeconds} seconds`, HttpStatus.TOO_MANY_REQUESTS));
  };

  private clientKey(request: Request): string {
    const subject = principalOf(request)?.subject;
    if (subject !== undefined) return `sub:${subject}`;
    // request.ip is X-Forwarded-For's client when Express trusts the peer as a proxy (see securityMiddleware), else the
    // peer; a forwarded value that is not an IP address counts as the peer that sent it.
    const { ipv6PrefixLength } = this.limit!;
    return `addr:${addressKey(request.ip, ipv6PrefixLength) ?? addressKey(request.socket.remoteAddress, ipv6PrefixLength) ?? 'unknown'}`;
  }

  /** One warning per outage, not one per request, and one line when the counters are back. */
  private storeFailed(error: unknown): void {
    if (this.storeDown) return;
    this.storeDown = true;
    this.logger.warn(
      `Rate-limit counters in ${this.store.location} cannot be reached, requests are served without a limit until they can: ${describeError(error)}`,
    );
  }

  private storeAnswered(): void {
    if (!this.storeDown) return;
    this.storeDown = false;
    this.logger.log(`Rate-limit counters in ${this.store.location} can be reached again, requests are limited again`);
  }
}
