import { createHmac } from 'node:crypto';
import type { Response } from 'supertest';
import type { HttpResponse } from '../support/http-client.js';
import { expectProblem } from '../support/problem-json.js';
import { expectSpringError } from '../support/spring-error.js';
import { useTestApp } from '../support/test-app.js';
import { TestIssuer } from '../support/test-issuer.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

const JWT = 'SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_';
const ERROR_URI = 'error_uri="https://tools.ietf.org/html/rfc6750#section-3.1"';
const DECODING = 'An error occurred while attempting to decode the Jwt: ';

function invalidToken(description: string): string {
  return `Bearer error="invalid_token", error_description="${description}", ${ERROR_URI}`;
}

const INSUFFICIENT =
  'Bearer error="insufficient_scope", error_description="The request requires higher privileges than provided by the access token.", ' +
  `${ERROR_URI}, scope="tickets.write"`;

const asHttp = (response: Response): HttpResponse => ({ status: response.status, headers: response.headers, body: response.text });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const now = () => Math.floor(Date.now() / 1000);

describe('Bearer tokens (SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUERURI set)', () => {
  let issuer: TestIssuer;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    issuer = await TestIssuer.start();
    await issuer.addKey('rsa-1', 'RS256');
    await issuer.addKey('ec-1', 'ES256');
    // No cool-down between refetches, so the rotation below is seen at once; 30 s by default.
    Object.assign(env, { [`${JWT}ISSUERURI`]: issuer.url, [`${JWT}AUDIENCES`]: 'ticket-service,other', JWT_JWKS_REFETCH_COOLDOWN_MS: '0' });
  });
  const testApp = useTestApp({ env });
  afterAll(() => issuer.stop());

  const read = () => issuer.token({ claims: { scope: 'tickets.read' } });
  const write = (kid = 'rsa-1') => issuer.token({ kid, claims: { scope: 'tickets.read tickets.write' } });

  describe('without a token', () => {
    it('answers 401 with a bare "WWW-Authenticate: Bearer" and a Spring error body under /api/tickets', async () => {
      const response = await testApp.http.get('/api/tickets/1');
      expect(response.headers['www-authenticate']).toBe('Bearer');
      const body = expectSpringError(asHttp(response), 401, '/api/tickets/1');
      expect(body).toMatchObject({ error: 'Unauthorized', message: 'Full authentication is required to access this resource' });
    });

    it('answers 401 as an RFC 9457 problem under /api/v2', async () => {
      const response = await testApp.http.get('/api/v2/tickets');
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expectProblem(asHttp(response), 401, '/api/v2/tickets');
    });

    it('treats another scheme (Basic) as no token', async () => {
      const response = await testApp.http.get('/api/tickets').set('Authorization', 'Basic YWxpY2U6c2VjcmV0');
      expect([response.status, response.headers['www-authenticate']]).toEqual([401, 'Bearer']);
    });

    it('lets anyone call the actuator, the API document and the event contract Swagger UI links to', async () => {
      await testApp.http.get('/actuator/health').expect(200);
      await testApp.http.get('/v3/api-docs').expect(200);
      await testApp.http.get('/asyncapi.yaml').expect(200);
      await testApp.http.get('/asyncapi.json').expect(200);
      await testApp.http.get('/asyncapi.yamlx').expect(401);
    });

    it('asks for a token on any other path too (deny by default), also in another letter case', async () => {
      for (const path of ['/API/tickets', '/nowhere']) {
        const response = await testApp.http.get(path);
        expect([path, response.status, response.headers['www-authenticate']]).toEqual([path, 401, 'Bearer']);
      }
    });
  });

  describe('with a valid token', () => {
    it('lets tickets.read read (RS256), and the write scope read too', async () => {
      await testApp.http
        .get('/api/tickets?limit=1')
        .set(bearer(await read()))
        .expect(200);
      await testApp.http
        .get('/api/v2/tickets?limit=1')
        .set(bearer(await write()))
        .expect(200);
    });

    it('lets tickets.write create, replace and delete, with an ES256 token', async () => {
      const token = await write('ec-1');
      const created = await testApp.http.post('/api/tickets').set(bearer(token)).send(buildTicketRequest()).expect(201);
      await testApp.http
        .put(`/api/tickets/${created.body.id}`)
        .set(bearer(token))
        .send(buildTicketRequest({ status: 'CLOSED' }))
        .expect(200);
      await testApp.http.delete(`/api/tickets/${created.body.id}`).set(bearer(token)).expect(204);
    });

    it('reads scopes from `scp` as a list or a string', async () => {
      await testApp.http
        .get('/api/tickets?limit=1')
        .set(bearer(await issuer.token({ claims: { scp: ['tickets.read'] } })))
        .expect(200);
      await testApp.http
        .get('/api/tickets?limit=1')
        .set(bearer(await issuer.token({ claims: { scp: 'tickets.read' } })))
        .expect(200);
    });

    it('accepts every public-key algorithm the key set announces: RS384/512, PS256/384/512, ES384/512 and EdDSA', async () => {
      for (const alg of ['RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES384', 'ES512', 'EdDSA'] as const) {
        await issuer.addKey(`${alg}-1`, alg);
        const token = await issuer.token({ kid: `${alg}-1`, claims: { scope: 'tickets.read' } });
        const response = await testApp.http.get('/api/tickets?limit=1').set(bearer(token));
        expect([alg, response.status]).toEqual([alg, 200]);
      }
    });

    it('accepts a token expired less than the 60 s clock skew ago', async () => {
      const token = await issuer.token({ claims: { scope: 'tickets.read', exp: now() - 30 } });
      await testApp.http.get('/api/tickets?limit=1').set(bearer(token)).expect(200);
    });
  });

  describe('with a token that lacks the scope', () => {
    it('answers a write with tickets.read only 403 insufficient_scope, Spring body under /api/tickets', async () => {
      const response = await testApp.http
        .post('/api/tickets')
        .set(bearer(await read()))
        .send(buildTicketRequest());
      expect(response.headers['www-authenticate']).toBe(INSUFFICIENT);
      const body = expectSpringError(asHttp(response), 403, '/api/tickets');
      expect(body.message).toBe('The request requires higher privileges than provided by the access token.');
    });

    it('answers 403 as a problem under /api/v2, for DELETE as for POST', async () => {
      const response = await testApp.http.delete('/api/v2/tickets/1').set(bearer(await read()));
      expect(response.headers['www-authenticate']).toBe(INSUFFICIENT);
      expectProblem(asHttp(response), 403, '/api/v2/tickets/1');
    });

    it('answers a read without any ticket scope 403 naming tickets.read', async () => {
      const response = await testApp.http.get('/api/tickets').set(bearer(await issuer.token({ claims: { scope: 'profile' } })));
      expect(response.status).toBe(403);
      expect(response.headers['www-authenticate']).toBe(INSUFFICIENT.replace('tickets.write', 'tickets.read'));
    });
  });

  describe('with a token that is refused', () => {
    async function expectInvalid(token: string, description: string, path = '/api/tickets') {
      const response = await testApp.http.get(path).set('Authorization', `Bearer ${token}`);
      expect(response.headers['www-authenticate']).toBe(invalidToken(description));
      return response;
    }

    it('refuses a token expired longer than the clock skew ago, saying when it expired', async () => {
      const exp = now() - 120;
      const response = await expectInvalid(
        await issuer.token({ claims: { scope: 'tickets.read', exp } }),
        `${DECODING}Jwt expired at ${new Date(exp * 1000).toISOString().replace('.000Z', 'Z')}`,
      );
      expect(expectSpringError(asHttp(response), 401, '/api/tickets').message).toMatch(
        /^An error occurred while attempting to decode the Jwt: Jwt expired at /,
      );
    });

    it('refuses a token not valid before a minute and more from now', async () => {
      const nbf = now() + 120;
      await expectInvalid(
        await issuer.token({ claims: { scope: 'tickets.read', nbf } }),
        `${DECODING}Jwt used before ${new Date(nbf * 1000).toISOString().replace('.000Z', 'Z')}`,
      );
    });

    it('refuses a token of another issuer, and one for another audience', async () => {
      await expectInvalid(
        await issuer.token({ claims: { scope: 'tickets.read', iss: 'https://elsewhere.example' } }),
        `${DECODING}The iss claim is not valid`,
      );
      await expectInvalid(
        await issuer.token({ claims: { scope: 'tickets.read', aud: 'billing' } }),
        `${DECODING}The aud claim is not valid`,
      );
      await expectInvalid(
        await issuer.token({ claims: { scope: 'tickets.read', aud: undefined } }),
        `${DECODING}The aud claim is not valid`,
      );
    });

    it('accepts any one of the configured audiences, also inside a list', async () => {
      const token = await issuer.token({ claims: { scope: 'tickets.read', aud: ['billing', 'other'] } });
      await testApp.http.get('/api/tickets?limit=1').set(bearer(token)).expect(200);
    });

    it('refuses a token whose signature does not match, one signed by an unknown key, and one not signed at all', async () => {
      const [header, payload] = (await read()).split('.');
      const [, , signature] = (await write()).split('.');
      await expectInvalid(`${header}.${payload}.${signature}`, `${DECODING}Signed JWT rejected: Invalid signature`);
      await issuer.addKey('never-published', 'RS256', { publish: false });
      await expectInvalid(
        await issuer.token({ kid: 'never-published', claims: { scope: 'tickets.read' } }),
        `${DECODING}Signed JWT rejected: Another algorithm expected, or no matching key(s) found`,
      );
      const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
      await expectInvalid(none, `${DECODING}Signed JWT rejected: Another algorithm expected, or no matching key(s) found`);
    });

    it('refuses an algorithm other than the one its key announces, and HS256 signed with the public key as the secret', async () => {
      const rejected = `${DECODING}Signed JWT rejected: Another algorithm expected, or no matching key(s) found`;
      // rsa-1 is published with alg RS256: the same RSA key under PS256 is not what the issuer announced.
      await expectInvalid(await issuer.token({ kid: 'rsa-1', alg: 'PS256', claims: { scope: 'tickets.read' } }), rejected);
      const [header, payload] = (await read()).split('.');
      const hs256 = `${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(header, 'base64url').toString()), alg: 'HS256' })).toString('base64url')}.${payload}`;
      const secret = JSON.stringify(issuer.keys.get('rsa-1')!.jwk);
      const signature = createHmac('sha256', secret).update(hs256).digest('base64url');
      await expectInvalid(`${hs256}.${signature}`, rejected);
    });

    it('refuses a malformed token, and a malformed Bearer header without the decoder prefix', async () => {
      await expectInvalid('abc.def', `${DECODING}Malformed token`);
      const response = await testApp.http.get('/api/tickets').set('Authorization', 'Bearer not a token');
      expect(response.headers['www-authenticate']).toBe(invalidToken('Bearer token is malformed'));
    });

    it('answers 401 as a problem under /api/v2, and refuses a bad token on the anonymous actuator too, as Spring does', async () => {
      const v2 = await expectInvalid('abc.def', `${DECODING}Malformed token`, '/api/v2/tickets');
      expectProblem(asHttp(v2), 401, '/api/v2/tickets');
      await expectInvalid('abc.def', `${DECODING}Malformed token`, '/actuator/health');
    });
  });

  it('describes the bearer scheme in the API document for every /api operation, and Swagger UI keeps the token across reloads', async () => {
    const { body } = await testApp.http.get('/v3/api-docs').expect(200);
    expect(body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(body.paths['/api/tickets'].post.security).toEqual([{ bearer: [] }]);
    expect(body.paths['/api/v2/tickets'].get.security).toEqual([{ bearer: [] }]);
    expect(body.paths['/actuator/health'].get.security).toBeUndefined();
    const init = await testApp.http.get('/swagger-ui/swagger-ui-init.js').expect(200);
    expect(init.text).toContain('"persistAuthorization": true');
  });

  it('picks up a key rotated in at the issuer without a restart', async () => {
    await testApp.http
      .get('/api/tickets?limit=1')
      .set(bearer(await read()))
      .expect(200);
    await issuer.addKey('rsa-2', 'RS256', { publish: false });
    issuer.publish('rsa-2', 'ec-1');
    const fetches = issuer.jwksFetches;
    const rotated = await issuer.token({ kid: 'rsa-2', claims: { scope: 'tickets.read' } });
    await testApp.http.get('/api/tickets?limit=1').set(bearer(rotated)).expect(200);
    expect(issuer.jwksFetches).toBe(fetches + 1);
    // A token of the key rotated out is refused once the new key set is in.
    const old = await issuer.token({ kid: 'rsa-1', claims: { scope: 'tickets.read' } });
    await testApp.http.get('/api/tickets?limit=1').set(bearer(old)).expect(401);
  });
});

describe('Bearer tokens with the keys from SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_JWK_SET_URI only', () => {
  let issuer: TestIssuer;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    issuer = await TestIssuer.start();
    await issuer.addKey('rsa-1', 'RS256');
    Object.assign(env, { [`${JWT}JWK_SET_URI`]: issuer.jwksUri });
  });
  const testApp = useTestApp({ env });
  afterAll(() => issuer.stop());

  it('checks the signature but neither issuer nor audience', async () => {
    const token = await issuer.token({ claims: { scope: 'tickets.read', iss: 'https://anyone.example', aud: 'anything' } });
    await testApp.http.get('/api/tickets?limit=1').set(bearer(token)).expect(200);
  });
});

describe('Bearer tokens with the algorithms pinned by SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_JWSALGORITHMS', () => {
  let issuer: TestIssuer;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    issuer = await TestIssuer.start();
    await issuer.addKey('ps-1', 'PS256');
    await issuer.addKey('es-1', 'ES384');
    Object.assign(env, { [`${JWT}ISSUERURI`]: issuer.url, [`${JWT}JWSALGORITHMS`]: 'PS256' });
  });
  const testApp = useTestApp({ env });
  afterAll(() => issuer.stop());

  it('accepts the pinned algorithm only, even where the key set holds a key of another', async () => {
    await testApp.http
      .get('/api/tickets?limit=1')
      .set(bearer(await issuer.token({ kid: 'ps-1', claims: { scope: 'tickets.read' } })))
      .expect(200);
    const response = await testApp.http
      .get('/api/tickets?limit=1')
      .set(bearer(await issuer.token({ kid: 'es-1', claims: { scope: 'tickets.read' } })));
    expect(response.headers['www-authenticate']).toBe(
      invalidToken(`${DECODING}Signed JWT rejected: Another algorithm expected, or no matching key(s) found`),
    );
  });
});

describe('Bearer tokens while the issuer cannot be reached', () => {
  let issuer: TestIssuer;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    issuer = await TestIssuer.start();
    await issuer.addKey('rsa-1', 'RS256');
    // Started, then stopped: its port refuses connections.
    const url = issuer.url;
    await issuer.stop();
    Object.assign(env, { [`${JWT}ISSUER_URI`]: url });
  });
  const testApp = useTestApp({ env });

  it('starts, and answers a request with a token 503 in the error shape of its version, never 500', async () => {
    const token = await issuer.token({ claims: { scope: 'tickets.read' } });
    const v1 = await testApp.http.get('/api/tickets').set(bearer(token));
    expect(expectSpringError(asHttp(v1), 503, '/api/tickets').message).toBe(
      'The token issuer cannot be reached to verify the bearer token, try again later',
    );
    expectProblem(asHttp(await testApp.http.get('/api/v2/tickets').set(bearer(token))), 503, '/api/v2/tickets');
  });

  it('still answers a request without a token 401, and health anonymously', async () => {
    await testApp.http.get('/api/tickets').expect(401);
    await testApp.http.get('/actuator/health').expect(200);
  });
});

describe('Bearer tokens while the issuer accepts connections but never answers', () => {
  let issuer: TestIssuer;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    issuer = await TestIssuer.start();
    await issuer.addKey('rsa-1', 'RS256');
    issuer.hang();
    Object.assign(env, { [`${JWT}ISSUERURI`]: issuer.url, JWT_JWKS_TIMEOUT_MS: '300' });
  });
  const testApp = useTestApp({ env });
  afterAll(() => issuer.stop());

  it('answers 503 once the fetch bound passes, rather than hanging', async () => {
    const token = await issuer.token({ claims: { scope: 'tickets.read' } });
    await testApp.http.get('/api/tickets').set(bearer(token)).expect(503);
  });
});
