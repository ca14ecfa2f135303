import type { EnvReader } from './app-config.js';

/** Spring's `management.endpoint.health.show-details` / `show-components` values. */
const SHOW_DETAILS = ['always', 'when-authorized', 'never'] as const;
export type ShowDetails = (typeof SHOW_DETAILS)[number];

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

export interface RedisConfig {
  /** Unset: counters are per process. */
  url?: string;
  keyPrefix: string;
  /** Bound on each command: a Redis that hangs must not hang a request. */
  commandTimeoutMs: number;
}

const JWT = 'SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_';

/** The public-key JWS algorithms: never `none`, never HS* (a shared secret, which a public key set must not become). */
export const ASYMMETRIC_JWS_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** Headers a browser script may read on a cross-origin answer unless CORS_EXPOSED_HEADERS says otherwise. */
const DEFAULT_EXPOSED_HEADERS =
  'Location,ETag,Link,X-Total-Count,Idempotent-Replayed,RateLimit,RateLimit-Policy,Retry-After,WWW-Authenticate';

export function parseShowDetails(read: EnvReader): { showDetails: ShowDetails; showComponents: ShowDetails } {
  const showDetails = showSetting(read, 'MANAGEMENT_ENDPOINT_HEALTH_SHOWDETAILS', 'MANAGEMENT_ENDPOINT_HEALTH_SHOW_DETAILS', 'always');
  // As in Spring, show-components follows show-details unless it is set itself.
  const showComponents = showSetting(read, 'MANAGEMENT_ENDPOINT_HEALTH_SHOWCOMPONENTS', 'MANAGEMENT_ENDPOINT_HEALTH_SHOW_COMPONENTS', showDetails);
  return { showDetails, showComponents };
}

export function parseSecurityConfig(read: EnvReader): SecurityConfig {
  return {
    jwt: jwtConfig(read),
    rateLimit: rateLimitConfig(read),
    cors: corsConfig(read),
    forwardHeadersStrategy: relaxedEnum(read, 'SERVER_FORWARD_HEADERS_STRATEGY', read.first('SERVER_FORWARD_HEADERS_STRATEGY'), 'none', FORWARD_HEADERS_STRATEGIES),
  };
}

export function parseRedisConfig(read: EnvReader): RedisConfig {
  const name = read.has('SPRING_DATA_REDIS_URL') ? 'SPRING_DATA_REDIS_URL' : 'REDIS_URL';
  const url = read.first(name);
  if (url !== undefined && (!/^rediss?:\/\/\S+$/.test(url) || !URL.canParse(url))) throw read.invalid(name, 'must be a redis:// or rediss:// URL');
  return {
    url,
    keyPrefix: read.string('RATE_LIMIT_KEY_PREFIX', 'ticket-service:rate-limit:'),
    commandTimeoutMs: duration(read, 'SPRING_DATA_REDIS_TIMEOUT', 250),
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
  };
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

function showSetting(read: EnvReader, name: string, dashed: string, fallback: ShowDetails): ShowDetails {
  const used = read.has(name) ? name : dashed;
  return relaxedEnum(read, used, read.first(used), fallback, SHOW_DETAILS);
}

/** Spring binds enum values loosely: `WHEN_AUTHORIZED`, `when-authorized` and `When_Authorized` are one value. */
function relaxedEnum<T extends string>(read: EnvReader, name: string, raw: string | undefined, fallback: T, allowed: readonly T[]): T {
  if (raw === undefined) return fallback;
  const value = raw.trim().toLowerCase().replaceAll('_', '-') as T;
  if (!allowed.includes(value)) throw read.invalid(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  return value;
}

function httpUrl(read: EnvReader, name: string): string | undefined {
  const value = read.first(name)?.trim();
  if (value !== undefined && (!/^https?:\/\/\S+$/.test(value) || !URL.canParse(value))) throw read.invalid(name, 'must be an http:// or https:// URL');
  return value;
}

/** Milliseconds, or a Spring duration such as `500ms` or `2s`. */
function duration(read: EnvReader, name: string, fallbackMs: number): number {
  const raw = read.string(name, String(fallbackMs)).trim();
  const match = /^(\d+)(ms|s)?$/.exec(raw);
  if (!match) throw read.invalid(name, `must be milliseconds or a duration such as 500ms or 2s, got "${raw}"`);
  return Number(match[1]) * (match[2] === 's' ? 1_000 : 1);
}
