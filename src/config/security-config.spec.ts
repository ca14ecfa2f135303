import { parseConfig } from './app-config.js';
import { ConfigError } from './env-reader.js';

const JWT = 'SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_';

describe('parseConfig: security settings', () => {
  it('switches every protection off by default, with health details always shown', () => {
    const config = parseConfig({});
    expect(config.security).toEqual({ jwt: undefined, rateLimit: undefined, cors: undefined, forwardHeadersStrategy: 'none' });
    expect(config.redis).toEqual({ url: undefined, keyPrefix: 'ticket-service:rate-limit:', commandTimeoutMs: 250 });
    expect(config.management.health).toEqual({ showDetails: 'always', showComponents: 'always' });
  });

  it.each([
    [`${JWT}ISSUERURI`, 'issuerUri'],
    [`${JWT}ISSUER_URI`, 'issuerUri'],
    [`${JWT}JWKSETURI`, 'jwkSetUri'],
    [`${JWT}JWK_SET_URI`, 'jwkSetUri'],
  ])('turns authentication on with %s', (name, field) => {
    expect(parseConfig({ [name]: 'https://idp.example/realms/desk' }).security.jwt).toEqual({
      [field]: 'https://idp.example/realms/desk',
      [field === 'issuerUri' ? 'jwkSetUri' : 'issuerUri']: undefined,
      jwsAlgorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'],
      audiences: [],
      fetchTimeoutMs: 3_000,
      refetchCooldownMs: 30_000,
      requesterEmailClaim: 'email',
    });
  });

  it('names the claim of a requester token with TICKETS_REQUESTER_EMAIL_CLAIM, and refuses what is no claim name', () => {
    const issuer = { [`${JWT}ISSUERURI`]: 'https://a.example' };
    expect(parseConfig({ ...issuer, TICKETS_REQUESTER_EMAIL_CLAIM: 'upn' }).security.jwt?.requesterEmailClaim).toBe('upn');
    expect(() => parseConfig({ ...issuer, TICKETS_REQUESTER_EMAIL_CLAIM: 'two words' })).toThrow('TICKETS_REQUESTER_EMAIL_CLAIM');
  });

  it("prefers Spring's own spelling over the dashed one, and splits the audiences", () => {
    const env = { [`${JWT}ISSUERURI`]: 'https://a.example', [`${JWT}ISSUER_URI`]: 'https://b.example', [`${JWT}AUDIENCES`]: 'desk, api' };
    expect(parseConfig(env).security.jwt).toMatchObject({ issuerUri: 'https://a.example', audiences: ['desk', 'api'] });
  });

  it('pins the JWS algorithms with JWSALGORITHMS (or JWS_ALGORITHMS), and refuses none and HS* there', () => {
    const issuer = { [`${JWT}ISSUERURI`]: 'https://idp.example' };
    expect(parseConfig({ ...issuer, [`${JWT}JWSALGORITHMS`]: 'PS256, ES384' }).security.jwt?.jwsAlgorithms).toEqual(['PS256', 'ES384']);
    expect(parseConfig({ ...issuer, [`${JWT}JWS_ALGORITHMS`]: 'RS256' }).security.jwt?.jwsAlgorithms).toEqual(['RS256']);
    for (const value of ['HS256', 'RS256,none', ' ']) {
      expect(() => parseConfig({ ...issuer, [`${JWT}JWSALGORITHMS`]: value })).toThrow(ConfigError);
      expect(() => parseConfig({ ...issuer, [`${JWT}JWSALGORITHMS`]: value })).toThrow(`${JWT}JWSALGORITHMS`);
    }
  });

  it('reads show-details in either spelling and any case, and show-components follows it unless set', () => {
    expect(parseConfig({ MANAGEMENT_ENDPOINT_HEALTH_SHOWDETAILS: 'WHEN_AUTHORIZED' }).management.health).toEqual({
      showDetails: 'when-authorized',
      showComponents: 'when-authorized',
    });
    const env = { MANAGEMENT_ENDPOINT_HEALTH_SHOW_DETAILS: 'never', MANAGEMENT_ENDPOINT_HEALTH_SHOW_COMPONENTS: 'always' };
    expect(parseConfig(env).management.health).toEqual({ showDetails: 'never', showComponents: 'always' });
  });

  it('turns the rate limit on with RATE_LIMIT_REQUESTS, per 60 s unless told otherwise', () => {
    expect(parseConfig({ RATE_LIMIT_REQUESTS: '100' }).security.rateLimit).toEqual({
      requests: 100,
      windowSeconds: 60,
      ipv6PrefixLength: 64,
    });
    expect(
      parseConfig({ RATE_LIMIT_REQUESTS: '5', RATE_LIMIT_WINDOW_SECONDS: '1', RATE_LIMIT_IPV6_PREFIX_LENGTH: '56' }).security.rateLimit,
    ).toEqual({
      requests: 5,
      windowSeconds: 1,
      ipv6PrefixLength: 56,
    });
  });

  it('reads the Redis URL from SPRING_DATA_REDIS_URL, else REDIS_URL, and its timeout as milliseconds or a Spring duration', () => {
    expect(parseConfig({ SPRING_DATA_REDIS_URL: 'redis://a:6379', REDIS_URL: 'redis://b:6379' }).redis.url).toBe('redis://a:6379');
    expect(parseConfig({ REDIS_URL: 'rediss://b:6380/2' }).redis.url).toBe('rediss://b:6380/2');
    expect(parseConfig({ SPRING_DATA_REDIS_TIMEOUT: '2s' }).redis.commandTimeoutMs).toBe(2_000);
    expect(parseConfig({ SPRING_DATA_REDIS_TIMEOUT: '150ms' }).redis.commandTimeoutMs).toBe(150);
  });

  it("turns CORS on with CORS_ALLOWED_ORIGINS, with Spring's 30-minute max age and any header by default", () => {
    expect(parseConfig({ CORS_ALLOWED_ORIGINS: 'https://desk.example.com, http://localhost:3000' }).security.cors).toMatchObject({
      allowedOrigins: ['https://desk.example.com', 'http://localhost:3000'],
      allowedMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['*'],
      maxAgeSeconds: 1_800,
    });
    expect(
      parseConfig({ CORS_ALLOWED_ORIGINS: '*', CORS_ALLOWED_METHODS: 'get,post', CORS_MAX_AGE_SECONDS: '60' }).security.cors,
    ).toMatchObject({
      allowedOrigins: ['*'],
      allowedMethods: ['GET', 'POST'],
      maxAgeSeconds: 60,
    });
  });

  it.each([
    [`${JWT}ISSUERURI`, 'idp.example'],
    [`${JWT}JWK_SET_URI`, 'ftp://idp.example/keys'],
    [`${JWT}AUDIENCES`, 'desk'],
    ['MANAGEMENT_ENDPOINT_HEALTH_SHOWDETAILS', 'sometimes'],
    ['MANAGEMENT_ENDPOINT_HEALTH_SHOW_COMPONENTS', 'yes'],
    ['RATE_LIMIT_REQUESTS', '-1'],
    ['RATE_LIMIT_WINDOW_SECONDS', '0'],
    ['RATE_LIMIT_IPV6_PREFIX_LENGTH', '129'],
    ['SPRING_DATA_REDIS_URL', 'http://redis:6379'],
    ['REDIS_URL', 'localhost:6379'],
    ['SPRING_DATA_REDIS_TIMEOUT', '2 minutes'],
    ['SERVER_FORWARD_HEADERS_STRATEGY', 'trust-all'],
    ['CORS_ALLOWED_ORIGINS', 'https://desk.example.com/app'],
    ['CORS_MAX_AGE_SECONDS', 'forever'],
  ])('stops with a message naming %s when it is %p', (name, value) => {
    const env = { [name]: value, ...(name.startsWith('CORS_') && name !== 'CORS_ALLOWED_ORIGINS' ? { CORS_ALLOWED_ORIGINS: '*' } : {}) };
    expect(() => parseConfig(env)).toThrow(ConfigError);
    expect(() => parseConfig(env)).toThrow(new RegExp(`^${name} `));
  });
});
