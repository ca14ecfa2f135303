import { createRemoteJWKSet, errors, type JWTVerifyGetKey } from 'jose';
import type { JwtConfig } from '../../config/security-config.js';
import { IssuerUnavailableException } from './bearer-token.exception.js';

/** What a token's keys and issuer check come from: the key set, and the `iss` a token must carry (if any). */
export interface IssuerKeys {
  key: JWTVerifyGetKey;
  issuer?: string;
}

/** Errors about the token rather than the issuer: the token is refused (401), the issuer is fine. */
const TOKEN_ERRORS = [errors.JWKSNoMatchingKey, errors.JWKSMultipleMatchingKeys, errors.JOSEAlgNotAllowed, errors.JOSENotSupported];

/**
 * The issuer's signing keys, found as Spring Boot finds them: from `jwk-set-uri` when it is set, otherwise through
 * the issuer's OpenID discovery document (`jwks_uri`). Discovery happens on the first request that needs it, not at
 * start-up, so the service starts while the issuer is away; a failed discovery is tried again by the next request.
 *
 * jose's remote key set caches the keys (10 min) and refetches once, at most every `refetchCooldownMs`, when a
 * token names a `kid` it does not hold: a key rotated in at the issuer is picked up without a restart. Every
 * fetch is bounded by `fetchTimeoutMs`; an issuer that cannot be reached, or answers nonsense, is a 503.
 */
export class IssuerKeySource {
  private pending?: Promise<IssuerKeys>;

  constructor(
    private readonly config: JwtConfig,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  keys(): Promise<IssuerKeys> {
    this.pending ??= this.resolve().catch((error: unknown) => {
      this.pending = undefined;
      throw error instanceof IssuerUnavailableException ? error : new IssuerUnavailableException(error);
    });
    return this.pending;
  }

  private async resolve(): Promise<IssuerKeys> {
    const { issuerUri, jwkSetUri, fetchTimeoutMs, refetchCooldownMs } = this.config;
    const jwksUri = jwkSetUri ?? (await this.discoverJwksUri(issuerUri!));
    const remote = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: fetchTimeoutMs, cooldownDuration: refetchCooldownMs });
    const key: JWTVerifyGetKey = async (header, token) => {
      try {
        return await remote(header, token);
      } catch (error) {
        if (TOKEN_ERRORS.some((type) => error instanceof type)) throw error;
        throw new IssuerUnavailableException(error);
      }
    };
    return { key, issuer: issuerUri };
  }

  /** Spring's JwtDecoders.fromIssuerLocation: the document must name the very issuer it was asked for. */
  private async discoverJwksUri(issuerUri: string): Promise<string> {
    const url = `${issuerUri.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const response = await this.fetchImpl(url, { signal: AbortSignal.timeout(this.config.fetchTimeoutMs), redirect: 'manual' });
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
    if (metadata.issuer !== issuerUri) {
      throw new Error(`The issuer "${String(metadata.issuer)}" in ${url} does not match the configured issuer "${issuerUri}"`);
    }
    if (typeof metadata.jwks_uri !== 'string' || !URL.canParse(metadata.jwks_uri)) throw new Error(`${url} names no valid jwks_uri`);
    return metadata.jwks_uri;
  }
}
