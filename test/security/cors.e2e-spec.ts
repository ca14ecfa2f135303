import type { Response } from 'supertest';
import type { HttpResponse } from '../support/http-client.js';
import { expectSpringError } from '../support/spring-error.js';
import { useTestApp } from '../support/test-app.js';
import { TestIssuer } from '../support/test-issuer.js';

const DESK = 'https://desk.example.com';
const asHttp = (response: Response): HttpResponse => ({ status: response.status, headers: response.headers, body: response.text });

describe('CORS (CORS_ALLOWED_ORIGINS set), with bearer tokens on', () => {
  let issuer: TestIssuer;
  const env: Record<string, string> = {
    CORS_ALLOWED_ORIGINS: `${DESK}, http://localhost:3000`,
    CORS_ALLOWED_METHODS: 'GET,POST,PUT,DELETE',
    CORS_MAX_AGE_SECONDS: '600',
  };
  beforeAll(async () => {
    issuer = await TestIssuer.start();
    await issuer.addKey('rsa-1', 'RS256');
    env.SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUERURI = issuer.url;
  });
  const testApp = useTestApp({ env });
  afterAll(() => issuer.stop());

  it('answers a preflight from an allowed origin 204 with the allowed methods, headers and max age, without a token', async () => {
    const response = await testApp.http
      .options('/api/tickets')
      .set('Origin', DESK)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization, content-type')
      .expect(204);
    expect(response.headers).toMatchObject({
      'access-control-allow-origin': DESK,
      'access-control-allow-methods': 'GET,POST,PUT,DELETE',
      'access-control-allow-headers': 'authorization, content-type',
      'access-control-max-age': '600',
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    });
    expect(response.text).toBe('');
  });

  it('lets the actual request through with Access-Control-Allow-Origin and the exposed headers', async () => {
    const token = await issuer.token({ claims: { scope: 'tickets.read' } });
    const response = await testApp.http.get('/api/tickets?limit=1').set('Origin', DESK).set('Authorization', `Bearer ${token}`).expect(200);
    expect(response.headers['access-control-allow-origin']).toBe(DESK);
    expect(response.headers['access-control-expose-headers']).toContain('Link, X-Total-Count');
    expect(response.headers.vary).toContain('Origin');
  });

  it('keeps the allowed origin on an error answer too, so the browser script can read the 401', async () => {
    const response = await testApp.http.get('/api/tickets').set('Origin', DESK).expect(401);
    expect(response.headers['access-control-allow-origin']).toBe(DESK);
  });

  it('refuses another origin, and a preflight for a method not allowed, 403 "Invalid CORS request"', async () => {
    const other = await testApp.http.get('/api/tickets').set('Origin', 'https://evil.example');
    expect(expectSpringError(asHttp(other), 403, '/api/tickets').message).toBe('Invalid CORS request');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const patch = await testApp.http.options('/api/tickets/1').set('Origin', DESK).set('Access-Control-Request-Method', 'PATCH');
    expect([patch.status, patch.headers['access-control-allow-origin']]).toEqual([403, undefined]);
  });

  it("leaves a request from the service's own origin (Swagger UI) alone", async () => {
    const response = await testApp.http.get('/v3/api-docs').set('Origin', 'http://localhost').set('Host', 'localhost').expect(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS behind a proxy that ends TLS (SERVER_FORWARD_HEADERS_STRATEGY=native)', () => {
  const OWN = 'https://tickets.example.com';
  const viaProxy = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'tickets.example.com', 'X-Forwarded-For': '203.0.113.9' };
  const behindProxy = useTestApp({ env: { CORS_ALLOWED_ORIGINS: DESK, SERVER_FORWARD_HEADERS_STRATEGY: 'native' } });
  const ignoringProxy = useTestApp({ env: { CORS_ALLOWED_ORIGINS: DESK } });

  it("leaves Swagger UI's requests from the service's public https origin alone, and builds actuator links on it", async () => {
    const response = await behindProxy.http.get('/v3/api-docs').set(viaProxy).set('Origin', OWN).expect(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    const { body } = await behindProxy.http.get('/actuator').set(viaProxy).expect(200);
    expect(body._links.self.href).toBe(`${OWN}/actuator`);
  });

  it('ignores the forwarded scheme and host with the default strategy: that origin is then a foreign one', async () => {
    const response = await ignoringProxy.http.get('/v3/api-docs').set(viaProxy).set('Origin', OWN);
    expect(response.status).toBe(403);
  });
});

describe('CORS with CORS_ALLOWED_ORIGINS=*', () => {
  const testApp = useTestApp({ env: { CORS_ALLOWED_ORIGINS: '*' } });

  it("answers any origin with `*` and Spring's default methods", async () => {
    const response = await testApp.http
      .options('/api/tickets/1')
      .set('Origin', 'https://any.example')
      .set('Access-Control-Request-Method', 'PATCH')
      .expect(204);
    expect(response.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET,HEAD,POST,PUT,PATCH,DELETE',
      'access-control-max-age': '1800',
    });
  });
});

describe('CORS off (the default)', () => {
  const testApp = useTestApp();

  it('answers a preflight 405 with Allow, as before, and adds no CORS header', async () => {
    const response = await testApp.http
      .options('/api/tickets')
      .set('Origin', DESK)
      .set('Access-Control-Request-Method', 'POST')
      .expect(405);
    expect(response.headers.allow?.split(', ').sort()).toEqual(['GET', 'POST']);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});
