import { BearerTokenException } from './bearer-token.exception.js';

/** Spring's DefaultBearerTokenResolver: RFC 6750's b64token syntax, scheme name in any case. */
const BEARER = /^Bearer (?<token>[a-zA-Z0-9\-._~+/]+=*)$/i;

/**
 * The token of an `Authorization: Bearer …` header; undefined when there is none (no header, or another scheme
 * such as Basic); a BearerTokenException when the header says Bearer but holds no well-formed token.
 */
export function resolveBearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined || !/^bearer/i.test(authorization)) return undefined;
  const token = BEARER.exec(authorization)?.groups?.token;
  if (token === undefined) throw BearerTokenException.invalid('Bearer token is malformed', false);
  return token;
}
