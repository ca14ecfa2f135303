import { errors } from 'jose';
import { resolveBearerToken } from './bearer-token.resolver.js';
import { principalFrom, rejectionReason, scopesOf } from './jwt-verifier.js';

describe('scopesOf', () => {
  it('splits `scope` on spaces', () => {
    expect(scopesOf({ scope: 'tickets.read  tickets.write' })).toEqual(['tickets.read', 'tickets.write']);
  });

  it('reads `scp` as a list or a string when there is no `scope`', () => {
    expect(scopesOf({ scp: ['tickets.read', 7] })).toEqual(['tickets.read']);
    expect(scopesOf({ scp: 'tickets.read tickets.write' })).toEqual(['tickets.read', 'tickets.write']);
  });

  it('gives no scopes for a token without either claim', () => {
    expect(scopesOf({ sub: 'alice' })).toEqual([]);
  });
});

describe('principalFrom', () => {
  it('takes the subject from sub, else client_id, else azp', () => {
    expect(principalFrom({ sub: 'alice', client_id: 'desk' }).subject).toBe('alice');
    expect(principalFrom({ client_id: 'desk', azp: 'x' }).subject).toBe('desk');
    expect(principalFrom({ azp: 'x' }).subject).toBe('x');
    expect(principalFrom({}).subject).toBeUndefined();
  });
});

describe('rejectionReason', () => {
  it("words an expired token as Spring's JwtTimestampValidator does, in Instant's format", () => {
    expect(rejectionReason(new errors.JWTExpired('expired', { exp: 1_705_314_600 }))).toBe('Jwt expired at 2024-01-15T10:30:00Z');
  });

  it('names the issuer and audience claims as not valid', () => {
    expect(rejectionReason(new errors.JWTClaimValidationFailed('x', {}, 'iss'))).toBe('The iss claim is not valid');
    expect(rejectionReason(new errors.JWTClaimValidationFailed('x', {}, 'aud'))).toBe('The aud claim is not valid');
  });

  it('calls anything that does not parse a malformed token', () => {
    expect(rejectionReason(new errors.JWSInvalid('Invalid Compact JWS'))).toBe('Malformed token');
    expect(rejectionReason(new TypeError('boom'))).toBe('Malformed token');
  });
});

describe('resolveBearerToken', () => {
  it('reads the token of a Bearer header, the scheme in any case', () => {
    expect(resolveBearerToken('Bearer abc.def-ghi_~+/==')).toBe('abc.def-ghi_~+/==');
    expect(resolveBearerToken('bearer abc')).toBe('abc');
  });

  it('finds no token without a header or under another scheme', () => {
    expect(resolveBearerToken(undefined)).toBeUndefined();
    expect(resolveBearerToken('Basic YWxpY2U6c2VjcmV0')).toBeUndefined();
  });

  it('refuses a Bearer header that holds no well-formed token', () => {
    expect(() => resolveBearerToken('Bearer two words')).toThrow('Bearer token is malformed');
    expect(() => resolveBearerToken('Bearer')).toThrow('Bearer token is malformed');
  });
});
