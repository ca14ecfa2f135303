import { type EnvReader, relaxedEnum } from './env-reader.js';

/** Spring's `server.forward-headers-strategy`: `native` and `framework` both take the client from X-Forwarded-For. */
const FORWARD_HEADERS_STRATEGIES = ['none', 'native', 'framework'] as const;
export type ForwardHeadersStrategy = (typeof FORWARD_HEADERS_STRATEGIES)[number];

/** An OAuth2 resource server's token verification (Spring's `spring.security.oauth2.resourceserver.jwt.*`). */
export interface JwtConfig {
  /** Discovery (`/.well-known/openid-configuration`) finds the keys unless jwkSetUri is set; `iss` must equal it. */
  issuerUri?: string;
  jwkSetUri?: string;
  /**
   * The JWS algorithms a token may be signed with (Spring's `jws-algorithms`). Unset: every asymmetric one, and the
   * issuer's key set decides, as a key verifies only tokens of its own type and curve, and of its `alg` when it names one.
   */
  jwsAlgorithms: readonly string[];
  /** `aud` must hold one of these; empty: `aud` is not checked. */
  audiences: string[];
  /** Bound on each fetch of the discovery document or the key set: past it the request answers 503. */
  fetchTimeoutMs: number;
  /** A token whose `kid` is not among the cached keys refetches the key set at most this often. */
  refetchCooldownMs: number;
  /** The claim that names the person a requester token acts for (TICKETS_REQUESTER_EMAIL_CLAIM). */
  requesterEmailClaim: string;
}

export interface RateLimitConfig {
  requests: number;
  windowSeconds: number;
  /** The IPv6 clients without a token are counted by their first this many bits. */
  ipv6PrefixLength: number;
}

export interface CorsConfig {
  /** Exact origins (`https://desk.example.com`), or `*` for any. */
  allowedOrigins: string[];
  allowedMethods: string[];
  /** `*` reflects whatever the preflight asks for. */
  allowedHeaders: string[];
  exposedHeaders: string[];
  maxAgeSeconds: number;
}

/** Each protection is off (undefined) unless its settings are given: decision 28. */
export interface SecurityConfig {
  jwt?: JwtConfig;
  rateLimit?: RateLimitConfig;
  cors?: CorsConfig;
  forwardHeadersStrategy: ForwardHeadersStrategy;
}

const JWT = 'SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_';

/** The public-key JWS algorithms: never `none`, never HS* (a shared secret, which a public key set must not become). */
export const ASYMMETRIC_JWS_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Headers a browser script may read on a cross-origin answer unless CORS_EXPOSED_HEADERS says otherwise. */
const DEFAULT_EXPOSED_HEADERS =
  'Location,ETag,Link,X-Total-Count,Idempotent-Replayed,RateLimit,RateLimit-Policy,Retry-After,WWW-Authenticate';

export function parseSecurityConfig(read: EnvReader): SecurityConfig {
  return {
    jwt: jwtConfig(read),
    rateLimit: rateLimitConfig(read),
    cors: corsConfig(read),
    forwardHeadersStrategy: relaxedEnum(
      read,
      'SERVER_FORWARD_HEADERS_STRATEGY',
      read.first('SERVER_FORWARD_HEADERS_STRATEGY'),
      'none',
      FORWARD_HEADERS_STRATEGIES,
    ),
  };
}

function jwtConfig(read: EnvReader): JwtConfig | undefined {
  const issuerName = read.has(`${JWT}ISSUERURI`) ? `${JWT}ISSUERURI` : `${JWT}ISSUER_URI`;
  const jwkSetName = read.has(`${JWT}JWKSETURI`) ? `${JWT}JWKSETURI` : `${JWT}JWK_SET_URI`;
  const issuerUri = httpUrl(read, issuerName);
  const jwkSetUri = httpUrl(read, jwkSetName);
  if (issuerUri === undefined && jwkSetUri === undefined) {
    if (read.has(`${JWT}AUDIENCES`)) throw read.invalid(`${JWT}AUDIENCES`, `needs ${JWT}ISSUERURI or ${JWT}JWKSETURI`);
    return undefined;
  }
  return {
    issuerUri,
    jwkSetUri,
    jwsAlgorithms: jwsAlgorithms(read),
    audiences: read.list(`${JWT}AUDIENCES`, ''),
    fetchTimeoutMs: read.intBetween('JWT_JWKS_TIMEOUT_MS', 3_000, 100, 60_000),
    refetchCooldownMs: read.int('JWT_JWKS_REFETCH_COOLDOWN_MS', 30_000),
    requesterEmailClaim: requesterEmailClaim(read),
  };
}

function requesterEmailClaim(read: EnvReader): string {
  const claim = (read.first('TICKETS_REQUESTER_EMAIL_CLAIM') ?? 'email').trim();
  if (!/^[\w.:/-]{1,128}$/.test(claim)) throw read.invalid('TICKETS_REQUESTER_EMAIL_CLAIM', `must be a claim name; got "${claim}"`);
  return claim;
}

function jwsAlgorithms(read: EnvReader): readonly string[] {
  const name = read.has(`${JWT}JWSALGORITHMS`) ? `${JWT}JWSALGORITHMS` : `${JWT}JWS_ALGORITHMS`;
  const algorithms = read.list(name, ASYMMETRIC_JWS_ALGORITHMS.join(','));
  if (algorithms.length === 0 || algorithms.some((algorithm) => !ASYMMETRIC_JWS_ALGORITHMS.includes(algorithm))) {
    throw read.invalid(name, `must list public-key algorithms among ${ASYMMETRIC_JWS_ALGORITHMS.join(', ')}; got "${read.first(name)}"`);
  }
  return algorithms;
}

function rateLimitConfig(read: EnvReader): RateLimitConfig | undefined {
  const requests = read.int('RATE_LIMIT_REQUESTS', 0);
  const windowSeconds = read.intBetween('RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400);
  const ipv6PrefixLength = read.intBetween('RATE_LIMIT_IPV6_PREFIX_LENGTH', 64, 1, 128);
  return requests === 0 ? undefined : { requests, windowSeconds, ipv6PrefixLength };
}

function corsConfig(read: EnvReader): CorsConfig | undefined {
  const allowedOrigins = read.list('CORS_ALLOWED_ORIGINS', '');
  if (allowedOrigins.length === 0) return undefined;
  for (const origin of allowedOrigins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw read.invalid('CORS_ALLOWED_ORIGINS', `must list origins such as https://desk.example.com (no path), or *; got "${origin}"`);
    }
  }
  return {
    allowedOrigins,
    allowedMethods: read.list('CORS_ALLOWED_METHODS', 'GET,HEAD,POST,PUT,PATCH,DELETE').map((method) => method.toUpperCase()),
    allowedHeaders: read.list('CORS_ALLOWED_HEADERS', '*'),
    exposedHeaders: read.list('CORS_EXPOSED_HEADERS', DEFAULT_EXPOSED_HEADERS),
    // Spring's CorsConfiguration default: 30 minutes.
    maxAgeSeconds: read.int('CORS_MAX_AGE_SECONDS', 1_800),
  };
}

function httpUrl(read: EnvReader, name: string): string | undefined {
  const value = read.first(name)?.trim();
  if (value !== undefined && (!/^https?:\/\/\S+$/.test(value) || !URL.canParse(value)))
    throw read.invalid(name, 'must be an http:// or https:// URL');
  return value;
}
