import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import request, { type Response } from 'supertest';
import { waitUntil } from '../support/waits.js';
import type { HttpResponse } from '../support/http-client.js';
import { expectProblem } from '../support/problem-json.js';
import { ServiceProcess } from '../support/service-process.js';
import { expectSpringError } from '../support/spring-error.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { createTestApp, useTestApp } from '../support/test-app.js';
import { TestIssuer } from '../support/test-issuer.js';

const REDIS_PORT = 6379;
const asHttp = (response: Response): HttpResponse => ({ status: response.status, headers: response.headers, body: response.text });

/** A key prefix of this test alone, so runs sharing the Redis server never count each other's requests. */
function uniquePrefix(): string {
  return `ticket-service-test:${process.env.TEST_RUN_ID ?? 'local'}:${randomBytes(4).toString('hex')}:`;
}

describe('Rate limits shared by two instances through Redis', () => {
  // A window far longer than the test takes, however loaded the machine; its end is brought forward in Redis.
  const env = {
    SPRING_DATA_REDIS_URL: `redis://127.0.0.1:${REDIS_PORT}`,
    RATE_LIMIT_REQUESTS: '3',
    RATE_LIMIT_WINDOW_SECONDS: '600',
    RATE_LIMIT_KEY_PREFIX: uniquePrefix(),
  };
  let instances: INestApplication[];
  beforeAll(async () => {
    instances = [await createTestApp({ env }), await createTestApp({ env })];
  });
  afterAll(async () => {
    await Promise.all(instances.map((app) => app.close()));
  });
  const on = (instance: number) => request(instances[instance].getHttpServer());

  it('counts a client across both instances, answers the request past the limit 429 on either, and serves it again after the window', async () => {
    const first = await on(0).get('/api/tickets?limit=1').expect(200);
    expect(first.headers['ratelimit-policy']).toBe('"default";q=3;w=600');
    expect(first.headers.ratelimit).toMatch(/^"default";r=2;t=\d+$/);
    expect((await on(1).get('/api/tickets?limit=1').expect(200)).headers.ratelimit).toMatch(/^"default";r=1;t=\d+$/);
    expect((await on(0).get('/api/tickets?limit=1').expect(200)).headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);

    const refused = await on(1).get('/api/tickets?limit=1');
    const body = expectSpringError(asHttp(refused), 429, '/api/tickets');
    expect(body.message).toBe('Rate limit exceeded: at most 3 requests per 600 seconds');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
    expectProblem(asHttp(await on(0).get('/api/v2/tickets')), 429, '/api/v2/tickets');

    // Never the actuator, also past the limit.
    const health = await on(0).get('/actuator/health').expect(200);
    expect(health.headers.ratelimit).toBeUndefined();

    // The window ends (Redis expires its counter): the next request starts a new one.
    const redis = new Redis(env.SPRING_DATA_REDIS_URL);
    try {
      const counters = await redis.keys(`${env.RATE_LIMIT_KEY_PREFIX}*`);
      expect(counters).toHaveLength(1);
      await redis.pexpire(counters[0], 1);
      await waitUntil(async () => (await redis.exists(counters[0])) === 0, 10_000, 'the window to end');
    } finally {
      redis.disconnect();
    }
    expect((await on(1).get('/api/tickets?limit=1').expect(200)).headers.ratelimit).toMatch(/^"default";r=2;t=\d+$/);
  });

  it('shows a redis component, UP with the server version', async () => {
    const { body } = await on(0).get('/actuator/health').expect(200);
    expect(body.components.redis).toEqual({ status: 'UP', details: { version: expect.stringMatching(/^\d+\.\d+/) } });
  });
});

describe('Rate limits without Redis (per process), per token subject and per forwarded address', () => {
  let issuer: TestIssuer;
  const env: Record<string, string> = {
    RATE_LIMIT_REQUESTS: '2',
    RATE_LIMIT_WINDOW_SECONDS: '60',
    SERVER_FORWARD_HEADERS_STRATEGY: 'native',
    CORS_ALLOWED_ORIGINS: 'https://desk.example',
  };
  beforeAll(async () => {
    issuer = await TestIssuer.start();
    await issuer.addKey('rsa-1', 'RS256');
    env.SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUERURI = issuer.url;
  });
  const testApp = useTestApp({ env });
  afterAll(() => issuer.stop());

  it("counts each token's subject on its own", async () => {
    const alice = `Bearer ${await issuer.token({ claims: { sub: 'alice', scope: 'tickets.read' } })}`;
    const bob = `Bearer ${await issuer.token({ claims: { sub: 'bob', scope: 'tickets.read' } })}`;
    for (let i = 0; i < 2; i++) await testApp.http.get('/api/tickets?limit=1').set('Authorization', alice).expect(200);
    await testApp.http.get('/api/tickets?limit=1').set('Authorization', alice).expect(429);
    await testApp.http.get('/api/tickets?limit=1').set('Authorization', bob).expect(200);
  });

  it('counts a request without a token by the address its proxy forwarded (native strategy), also when it is refused 401', async () => {
    for (let i = 0; i < 2; i++) await testApp.http.get('/api/tickets').set('X-Forwarded-For', '203.0.113.7, 10.0.0.2').expect(401);
    await testApp.http.get('/api/tickets').set('X-Forwarded-For', '203.0.113.7').expect(429);
    const other = await testApp.http.get('/v3/api-docs').set('X-Forwarded-For', '203.0.113.8');
    expect([other.status, other.headers.ratelimit]).toEqual([200, expect.stringMatching(/^"default";r=1;/)]);
    await testApp.http.get('/v3/api-docs').set('X-Forwarded-For', '203.0.113.7').expect(429);
  });

  const from = (address: string) => ({ 'X-Forwarded-For': address });

  it('counts requests whose token is refused, invalid or expired, by address, and answers 429 past the limit', async () => {
    const expired = await issuer.token({ claims: { scope: 'tickets.read', exp: Math.floor(Date.now() / 1000) - 600 } });
    await testApp.http.get('/api/tickets').set(from('203.0.113.20')).set('Authorization', 'Bearer not-a-token').expect(401);
    await testApp.http.get('/api/tickets').set(from('203.0.113.20')).set('Authorization', `Bearer ${expired}`).expect(401);
    await testApp.http.get('/api/tickets').set(from('203.0.113.20')).set('Authorization', 'Bearer not-a-token').expect(429);
  });

  it('counts preflights and CORS refusals, and a 429 to an allowed origin keeps its CORS headers', async () => {
    const preflight = { Origin: 'https://desk.example', 'Access-Control-Request-Method': 'GET' };
    await testApp.http.options('/api/tickets').set(from('203.0.113.21')).set(preflight).expect(204);
    await testApp.http.get('/v3/api-docs').set(from('203.0.113.21')).set('Origin', 'https://elsewhere.example').expect(403);
    const refused = await testApp.http.get('/v3/api-docs').set(from('203.0.113.21')).set('Origin', 'https://desk.example').expect(429);
    expect(refused.headers['access-control-allow-origin']).toBe('https://desk.example');
  });

  // The only requests of this file that come from the proxy itself, which the test's connection plays.
  it('takes only an IP address from X-Forwarded-For: anything else counts as the proxy that sent it', async () => {
    await testApp.http.get('/api/tickets').set(from('unknown')).expect(401);
    await testApp.http
      .get('/api/tickets')
      .set(from('a'.repeat(2_000)))
      .expect(401);
    await testApp.http.get('/api/tickets').expect(429);
  });

  it('counts an address however it is spelled, and an IPv6 client by its /64', async () => {
    await testApp.http.get('/api/tickets').set(from('2001:DB8::1')).expect(401);
    await testApp.http.get('/api/tickets').set(from('2001:db8:0:0:ffff::2')).expect(401);
    await testApp.http.get('/api/tickets').set(from('2001:0db8::3')).expect(429);
    await testApp.http.get('/api/tickets').set(from('2001:db8:0:1::1')).expect(401);

    await testApp.http.get('/api/tickets').set(from('::ffff:198.51.100.30')).expect(401);
    await testApp.http.get('/api/tickets').set(from('198.51.100.30')).expect(401);
    await testApp.http.get('/api/tickets').set(from('::FFFF:c633:641e')).expect(429);
  });
});

describe('Rate limits ignore X-Forwarded-For by default', () => {
  const testApp = useTestApp({ env: { RATE_LIMIT_REQUESTS: '1', RATE_LIMIT_WINDOW_SECONDS: '60' } });

  it('counts the connection address, whatever address a client claims to forward for', async () => {
    await testApp.http.get('/api/tickets?limit=1').set('X-Forwarded-For', '198.51.100.1').expect(200);
    await testApp.http.get('/api/tickets?limit=1').set('X-Forwarded-For', '198.51.100.2').expect(429);
  });
});

describe('Rate limits while Redis is cut off', () => {
  const PASSWORD = 'not-for-the-log';
  let proxy: TcpProxy;
  let service: ServiceProcess;
  beforeAll(async () => {
    proxy = await TcpProxy.start(REDIS_PORT);
    service = await ServiceProcess.start({
      // A password the server does not need (ioredis only warns): it must never appear in a log line.
      SPRING_DATA_REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${proxy.port}`,
      RATE_LIMIT_REQUESTS: '1000',
      RATE_LIMIT_KEY_PREFIX: uniquePrefix(),
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
    });
  });
  afterAll(async () => {
    await service?.stop();
    await proxy?.stop();
  });
  const get = (path: string) => fetch(`${service.url}${path}`);
  const linesOf = (context: string) =>
    service.output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; context?: string; message: string })
      .filter((line) => line.context === context);

  it('serves every request uncounted, warns once naming Redis and its address (not the password), and says once when it is back', async () => {
    expect((await get('/api/tickets?limit=1')).headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
    proxy.cut();
    for (let i = 0; i < 5; i++) {
      const response = await get('/api/tickets?limit=1');
      expect([response.status, response.headers.get('ratelimit')]).toEqual([200, null]);
    }
    const redisAt = `Redis at 127.0.0.1:${proxy.port}`;
    expect(linesOf('RateLimit').map(({ level, message }) => [level, message])).toEqual([
      [
        'warn',
        expect.stringMatching(
          new RegExp(`^Rate-limit counters in ${redisAt} cannot be reached, requests are served without a limit until they can: .+`),
        ),
      ],
    ]);

    const health = await get('/actuator/health');
    const body = (await health.json()) as { status: string; components: Record<string, { status: string; details?: { error?: string } }> };
    expect([health.status, body.status, body.components.redis.status]).toEqual([200, 'UP', 'DOWN']);
    expect(body.components.redis.details?.error).toEqual(expect.any(String));

    proxy.restore();
    const deadline = Date.now() + 15_000;
    while ((await get('/api/tickets?limit=1')).headers.get('ratelimit') === null) {
      if (Date.now() > deadline) throw new Error('the rate limit did not come back after Redis did');
      await sleep(200);
    }
    await get('/api/tickets?limit=1');
    expect(linesOf('RateLimit').map(({ level, message }) => [level, message])).toEqual([
      ['warn', expect.stringContaining(`${redisAt} cannot be reached`)],
      ['info', `Rate-limit counters in ${redisAt} can be reached again, requests are limited again`],
    ]);
    expect(service.output).not.toContain(PASSWORD);
  });
});
