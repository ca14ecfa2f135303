import { errors, jwtVerify, type JWTPayload } from 'jose';
import type { JwtConfig } from '../../config/security-config.js';
import { BearerTokenException, IssuerUnavailableException } from './bearer-token.exception.js';
import { IssuerKeySource } from './issuer-keys.js';
import type { Principal } from '../../common/context/principal.js';
import { canonicalEmail } from '../../common/validation/email-address.js';
import { isRequesterToken } from '../access-rules.js';

/** Spring Security's JwtTimestampValidator default. */
export const CLOCK_SKEW_SECONDS = 60;

/** A verified token: the request's Principal, and until when the token is accepted (`exp` plus the clock skew). */
export interface VerifiedToken {
  principal: Principal;
  /** Milliseconds since the epoch; undefined for a token without `exp`. */
  acceptedUntil?: number;
}

/** Verifies a bearer token as Spring's NimbusJwtDecoder does and turns it into the request's Principal. */
export class JwtVerifier {
  private readonly keys: IssuerKeySource;

  constructor(private readonly config: JwtConfig) {
    this.keys = new IssuerKeySource(config);
  }

  /** Throws a BearerTokenException (401) for a token refused, an IssuerUnavailableException (503) when undecidable. */
  async verify(token: string): Promise<VerifiedToken> {
    const { key, issuer } = await this.keys.keys();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key, {
        algorithms: [...this.config.jwsAlgorithms],
        issuer,
        audience: this.config.audiences.length > 0 ? this.config.audiences : undefined,
        clockTolerance: CLOCK_SKEW_SECONDS,
      }));
    } catch (error) {
      if (error instanceof IssuerUnavailableException) throw error;
      throw BearerTokenException.invalid(rejectionReason(error));
    }
    const acceptedUntil = typeof payload.exp === 'number' ? (payload.exp + CLOCK_SKEW_SECONDS) * 1000 : undefined;
    return { principal: principalFrom(payload, this.config.requesterEmailClaim), acceptedUntil };
  }
}

/** The longest subject taken: what the columns that keep it hold (history actor, comment author, idempotency scope). */
export const SUBJECT_MAX_LENGTH = 255;

/**
 * The token's Principal; throws a BearerTokenException (401) for a subject longer than SUBJECT_MAX_LENGTH characters,
 * and for a requester token whose `emailClaim` is missing, no address, or marked unverified (`email_verified: false`).
 */
export function principalFrom(payload: JWTPayload, emailClaim = 'email'): Principal {
  const claim = (['sub', 'client_id', 'azp'] as const).find((name) => typeof payload[name] === 'string' && payload[name] !== '');
  const subject = claim === undefined ? undefined : (payload[claim] as string);
  // Characters as MySQL's utf8mb4 counts them: code points.
  if (subject !== undefined && [...subject].length > SUBJECT_MAX_LENGTH) {
    throw BearerTokenException.invalid(`The ${claim} claim is longer than ${SUBJECT_MAX_LENGTH} characters`);
  }
  const scopes = scopesOf(payload);
  if (!isRequesterToken(scopes)) return { subject, scopes };
  const requesterEmail = canonicalEmail(payload[emailClaim]);
  if (requesterEmail === undefined)
    throw BearerTokenException.invalid(`A requester token needs an email address in its ${emailClaim} claim`);
  if (payload.email_verified === false) throw BearerTokenException.invalid(`The ${emailClaim} claim of a requester token is not verified`);
  return { subject, scopes, requesterEmail };
}

/** Spring's JwtGrantedAuthoritiesConverter reads `scope` (space-separated string) and else `scp` (list or string). */
export function scopesOf(payload: JWTPayload): string[] {
  for (const claim of ['scope', 'scp']) {
    const value = payload[claim];
    if (typeof value === 'string') return value.split(' ').filter((scope) => scope !== '');
    if (Array.isArray(value)) return value.filter((scope): scope is string => typeof scope === 'string');
  }
  return [];
}

/** The reason Spring's decoder gives for each kind of refusal (after its "An error occurred…" prefix). */
export function rejectionReason(error: unknown): string {
  if (error instanceof errors.JWTExpired) return `Jwt expired at ${instant(error.payload.exp)}`;
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return `Jwt used before ${instant(error.payload.nbf)}`;
    if (error.claim === 'iss' || error.claim === 'aud') return `The ${error.claim} claim is not valid`;
    return error.message;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'Signed JWT rejected: Invalid signature';
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return 'Signed JWT rejected: Another algorithm expected, or no matching key(s) found';
  }
  return 'Malformed token';
}

/** Java's Instant.toString(): seconds precision unless there are fractions. */
function instant(epochSeconds: unknown): string {
  return typeof epochSeconds === 'number' ? new Date(epochSeconds * 1000).toISOString().replace('.000Z', 'Z') : String(epochSeconds);
}
