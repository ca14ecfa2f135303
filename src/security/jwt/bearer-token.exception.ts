import { HttpException, HttpStatus } from '@nestjs/common';

/** Where RFC 6750 defines its error codes; Spring Security sends it as `error_uri` with each of them. */
const RFC_6750_ERRORS = 'https://tools.ietf.org/html/rfc6750#section-3.1';

/** Spring's prefix for every token its JwtDecoder rejects. */
const DECODING_ERROR = 'An error occurred while attempting to decode the Jwt: ';

/** The description Spring Security's BearerTokenAccessDeniedHandler gives insufficient_scope. */
export const INSUFFICIENT_SCOPE = 'The request requires higher privileges than provided by the access token.';

/**
 * A refused bearer token (RFC 6750 section 3), with the `WWW-Authenticate` challenge Spring Security's resource
 * server sends for it: its BearerTokenAuthenticationEntryPoint (401) and BearerTokenAccessDeniedHandler (403)
 * write `Bearer` and then `key="value"` pairs joined by ", ", in the order error, error_description, error_uri, scope.
 */
export class BearerTokenException extends HttpException {
  private constructor(
    status: HttpStatus,
    message: string,
    readonly challenge: string,
  ) {
    super(message, status);
  }

  /** No token at all: a bare `Bearer` challenge, as Spring sends. */
  static missing(): BearerTokenException {
    return new BearerTokenException(HttpStatus.UNAUTHORIZED, 'Full authentication is required to access this resource', 'Bearer');
  }

  /** A token that is malformed, badly signed, expired, or for another issuer or audience. */
  static invalid(reason: string, decoding = true): BearerTokenException {
    const description = decoding ? DECODING_ERROR + reason : reason;
    return new BearerTokenException(
      HttpStatus.UNAUTHORIZED,
      description,
      challenge({ error: 'invalid_token', error_description: description, error_uri: RFC_6750_ERRORS }),
    );
  }

  /**
   * A valid token without the scope the request needs. Spring's handler stops at error_uri; RFC 6750 lets the
   * challenge name the scope that would do, which tells a client what to ask its issuer for.
   */
  static insufficientScope(scope: string): BearerTokenException {
    return new BearerTokenException(
      HttpStatus.FORBIDDEN,
      INSUFFICIENT_SCOPE,
      challenge({ error: 'insufficient_scope', error_description: INSUFFICIENT_SCOPE, error_uri: RFC_6750_ERRORS, scope }),
    );
  }
}

function challenge(parameters: Record<string, string>): string {
  // A description quotes what a token claimed; a `"` or `\` in it must not end the quoted string early.
  const pairs = Object.entries(parameters).map(([key, value]) => `${key}="${value.replace(/["\\]/g, '\\$&')}"`);
  return `Bearer ${pairs.join(', ')}`;
}

/** The issuer's discovery document or key set could not be fetched: the token can be neither accepted nor refused. */
export class IssuerUnavailableException extends HttpException {
  /** Kept off HttpException's `cause`, which the error mapping reads as a body-parser failure. */
  constructor(readonly reason: unknown) {
    super('The token issuer cannot be reached to verify the bearer token, try again later', HttpStatus.SERVICE_UNAVAILABLE);
  }
}
