import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { TcpProxy } from '../support/tcp-proxy.js';
import { createTestApp, useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

const ACTUATOR_JSON = 'application/vnd.spring-boot.actuator.v3+json';
const PROBES_ON = { MANAGEMENT_HEALTH_PROBES_ENABLED: 'true' };
const SPRING_ERROR_KEYS = ['timestamp', 'status', 'error', 'message', 'path'];

/** Polls until `condition` holds for a GET of `path`; the state a test provokes (a cut connection) takes a moment to show. */
async function eventually(app: INestApplication, path: string, condition: (body: any) => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await request(app.getHttpServer()).get(path);
    if (condition(response.body)) return response;
    if (Date.now() > deadline) throw new Error(`${path} still answers ${JSON.stringify(response.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Actuator', () => {
  describe('with the default settings', () => {
    const testApp = useTestApp();

    it('answers /actuator/health 200 UP in Spring Boot 3 shape, components sorted by name, details shown', async () => {
      const response = await testApp.http
        .get('/actuator/health')
        .expect(200)
        .expect('Content-Type', new RegExp(`^${ACTUATOR_JSON.replace(/[.+]/g, '\\$&')}`));
      const { body } = response;

      expect(Object.keys(body)).toEqual(['status', 'components']);
      expect(body.status).toBe('UP');
      expect(Object.keys(body.components)).toEqual(['db', 'diskSpace', 'outbox', 'ping', 'rabbit']);
      expect(body.components.db).toEqual({ status: 'UP', details: { database: 'MariaDB', validationQuery: 'isValid()' } });
      expect(body.components.ping).toEqual({ status: 'UP' });
      expect(body.components.rabbit).toEqual({ status: 'UP', details: { version: expect.stringMatching(/^\d+\.\d+\.\d+/) } });

      const disk = body.components.diskSpace;
      expect(disk.status).toBe('UP');
      expect(Object.keys(disk.details)).toEqual(['total', 'free', 'threshold', 'path', 'exists']);
      expect(disk.details).toEqual({
        total: expect.any(Number),
        free: expect.any(Number),
        threshold: 10_485_760,
        path: `${process.cwd()}/.`,
        exists: true,
      });
      expect(disk.details.total).toBeGreaterThanOrEqual(disk.details.free);
      expect(disk.details.free).toBeGreaterThanOrEqual(10_485_760);

      // Other suites may leave events behind for the relay to publish, so the backlog is checked by type here.
      const outbox = body.components.outbox;
      expect(outbox.status).toBe('UP');
      expect(Object.keys(outbox.details)).toEqual(['pending', 'oldestPendingAt', 'oldestPendingAgeMs', 'parked', 'partitionsHeld']);
      expect(outbox.details).toMatchObject({ pending: expect.any(Number), parked: expect.any(Number) });
      expect([outbox.details.oldestPendingAt === null, outbox.details.oldestPendingAgeMs === null]).toEqual(
        outbox.details.pending === 0 ? [true, true] : [false, false],
      );
    });

    it('answers application/json to a client that asks for it', async () => {
      await testApp.http
        .get('/actuator/health')
        .set('Accept', 'application/json')
        .expect(200)
        .expect('Content-Type', /^application\/json/);
    });

    it('answers one component at /actuator/health/<name>', async () => {
      const db = await testApp.http.get('/actuator/health/db').expect(200);
      expect(db.body).toEqual({ status: 'UP', details: { database: 'MariaDB', validationQuery: 'isValid()' } });
      expect((await testApp.http.get('/actuator/health/ping').expect(200)).body).toEqual({ status: 'UP' });
    });

    it.each(['nope', 'liveness', 'readiness', 'livenessState', 'readinessState'])(
      'answers 404 in the Spring error shape for /actuator/health/%s (probes are off by default)',
      async (name) => {
        const response = await testApp.http
          .get(`/actuator/health/${name}`)
          .expect(404)
          .expect('Content-Type', /application\/json/);
        expect(Object.keys(response.body)).toEqual(SPRING_ERROR_KEYS);
        expect(response.body).toMatchObject({ status: 404, error: 'Not Found', path: `/actuator/health/${name}` });
      },
    );

    it('answers /actuator/info with app facts from package.json, the build and the Node.js version', async () => {
      const response = await testApp.http.get('/actuator/info').expect(200).expect('Content-Type', /json/);
      expect(response.body).toEqual({
        app: {
          name: 'ticket-service',
          description: 'IT support ticket service: REST API on MySQL/MariaDB with events on RabbitMQ',
          version: '1.0.0',
        },
        build: { artifact: 'ticket-service', name: 'ticket-service', version: '1.0.0' },
        node: { version: process.versions.node },
      });
    });

    it('links the exposed endpoints at /actuator, on the host the client used', async () => {
      const response = await testApp.http.get('/actuator').set('Host', 'tickets.example.com:8080').expect(200);
      const base = 'http://tickets.example.com:8080/actuator';
      expect(response.body).toEqual({
        _links: {
          self: { href: base, templated: false },
          health: { href: `${base}/health`, templated: false },
          'health-path': { href: `${base}/health/{*path}`, templated: true },
          info: { href: `${base}/info`, templated: false },
        },
      });
      expect(Object.keys(response.body._links)).toEqual(['self', 'health', 'health-path', 'info']);
    });

    it.each(['/actuator/env', '/actuator/metrics', '/actuator/beans', '/actuator/shutdown'])('does not serve %s', async (path) => {
      await testApp.http.get(path).expect(404);
    });

    it('answers 405 with Allow: GET to another method on /actuator/health', async () => {
      await testApp.http.post('/actuator/health').expect(405).expect('Allow', /GET/);
    });
  });

  describe('when a component is DOWN', () => {
    it('answers 503 DOWN, diskSpace with its details, when less than the threshold is free', async () => {
      const app = await createTestApp({ env: { MANAGEMENT_HEALTH_DISKSPACE_THRESHOLD: String(2 ** 62) } });
      try {
        const response = await request(app.getHttpServer()).get('/actuator/health').expect(503);
        expect(response.body.status).toBe('DOWN');
        expect(response.body.components.diskSpace).toMatchObject({ status: 'DOWN', details: { threshold: 2 ** 62, exists: true } });
        expect(response.body.components.db.status).toBe('UP');
        await request(app.getHttpServer()).get('/actuator/health/diskSpace').expect(503);
      } finally {
        await app.close();
      }
    });

    describe('the broker', () => {
      let proxy: TcpProxy;
      let app: INestApplication;

      beforeAll(async () => {
        proxy = await TcpProxy.start(5672);
        app = await createTestApp({ env: { ...PROBES_ON, RABBITMQ_URL: `amqp://guest:guest@127.0.0.1:${proxy.port}` } });
        await eventually(app, '/actuator/health/rabbit', (body) => body.status === 'UP');
        proxy.cut();
      });

      afterAll(async () => {
        await app.close();
        await proxy.stop();
      });

      it('makes rabbit DOWN with an error and the whole health 503 DOWN', async () => {
        await eventually(app, '/actuator/health/rabbit', (body) => body.status === 'DOWN');
        const response = await request(app.getHttpServer()).get('/actuator/health').expect(503);
        expect(response.body.status).toBe('DOWN');
        expect(response.body.components.rabbit).toEqual({ status: 'DOWN', details: { error: expect.stringMatching(/^\w+: .+/) } });
        expect(response.body.components.db.status).toBe('UP');
        await request(app.getHttpServer()).get('/actuator/health/rabbit').expect(503);
      });

      it('counts the events waiting in the outbox, UP: the backlog alone never makes the service DOWN', async () => {
        await request(app.getHttpServer()).post('/api/tickets').send(buildTicketRequest()).expect(201);
        const { body } = await request(app.getHttpServer()).get('/actuator/health/outbox').expect(200);
        expect(body.status).toBe('UP');
        expect(body.details.pending).toBeGreaterThanOrEqual(1);
        expect(new Date(body.details.oldestPendingAt).toISOString()).toBe(body.details.oldestPendingAt);
        expect(body.details.oldestPendingAgeMs).toBeGreaterThanOrEqual(0);
      });

      it('keeps readiness and liveness UP: writes still succeed without the broker', async () => {
        expect((await request(app.getHttpServer()).get('/actuator/health/readiness').expect(200)).body).toEqual({ status: 'UP' });
        expect((await request(app.getHttpServer()).get('/actuator/health/liveness').expect(200)).body).toEqual({ status: 'UP' });
        await request(app.getHttpServer()).post('/api/tickets').send(buildTicketRequest()).expect(201);
      });
    });

    it('reports rabbit DOWN, not a failed start-up, when the broker is unreachable from the start', async () => {
      const closed = await TcpProxy.start(5672);
      closed.cut();
      const app = await createTestApp({ env: { RABBITMQ_URL: `amqp://guest:guest@127.0.0.1:${closed.port}` } });
      try {
        const response = await request(app.getHttpServer()).get('/actuator/health').expect(503);
        expect(response.body.components.rabbit).toEqual({ status: 'DOWN', details: { error: expect.any(String) } });
      } finally {
        await app.close();
        await closed.stop();
      }
    });

    describe('the database', () => {
      let proxy: TcpProxy;
      let app: INestApplication;

      beforeAll(async () => {
        proxy = await TcpProxy.start(3306);
        app = await createTestApp({ env: { ...PROBES_ON, DB_PORT: String(proxy.port), MANAGEMENT_HEALTH_TIMEOUT_MS: '500' } });
      });

      afterEach(() => {
        proxy.delayMs = 0;
        proxy.restore();
      });

      afterAll(async () => {
        await app.close();
        await proxy.stop();
      });

      it('makes db DOWN with an error, the whole health 503 DOWN, readiness 503 DOWN and liveness still UP', async () => {
        proxy.cut();
        const response = await request(app.getHttpServer()).get('/actuator/health').expect(503);
        expect(response.body.status).toBe('DOWN');
        expect(response.body.components.db).toEqual({ status: 'DOWN', details: { error: expect.stringMatching(/^\w+: .+/) } });
        expect(response.body.components.outbox).toEqual({ status: 'DOWN', details: { error: expect.any(String) } });
        expect(response.body.components.livenessState).toEqual({ status: 'UP' });

        expect((await request(app.getHttpServer()).get('/actuator/health/readiness').expect(503)).body).toEqual({ status: 'DOWN' });
        expect((await request(app.getHttpServer()).get('/actuator/health/liveness').expect(200)).body).toEqual({ status: 'UP' });
      });

      it('is UP again once the database answers again', async () => {
        await eventually(app, '/actuator/health/readiness', (body) => body.status === 'UP');
        await request(app.getHttpServer()).get('/actuator/health/db').expect(200);
      });

      it('answers promptly with db DOWN and a timeout error when the database hangs', async () => {
        proxy.delayMs = 2_000;
        const response = await request(app.getHttpServer()).get('/actuator/health/db').timeout(1_900).expect(503);
        expect(response.body).toEqual({ status: 'DOWN', details: { error: 'TimeoutError: no answer within 500 ms' } });
      });
    });
  });

  describe('with probes enabled', () => {
    const testApp = useTestApp({ env: PROBES_ON });

    it('adds livenessState and readinessState to the components and lists the groups last', async () => {
      const { body } = await testApp.http.get('/actuator/health').expect(200);
      expect(Object.keys(body)).toEqual(['status', 'components', 'groups']);
      expect(Object.keys(body.components)).toEqual(['db', 'diskSpace', 'livenessState', 'outbox', 'ping', 'rabbit', 'readinessState']);
      expect(body.components.livenessState).toEqual({ status: 'UP' });
      expect(body.components.readinessState).toEqual({ status: 'UP' });
      expect(body.groups).toEqual(['liveness', 'readiness']);
    });

    it('answers the liveness and readiness groups with just their status', async () => {
      expect((await testApp.http.get('/actuator/health/liveness').expect(200).expect('Content-Type', /json/)).body).toEqual({
        status: 'UP',
      });
      expect((await testApp.http.get('/actuator/health/readiness').expect(200)).body).toEqual({ status: 'UP' });
    });

    it('accepts the newer Spring name of the switch', async () => {
      const other = await createTestApp({ env: { MANAGEMENT_ENDPOINT_HEALTH_PROBES_ENABLED: 'true' } });
      try {
        await request(other.getHttpServer()).get('/actuator/health/liveness').expect(200);
      } finally {
        await other.close();
      }
    });
  });

  describe('exposure and groups follow configuration', () => {
    it('serves only health when MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE=health, and links only it', async () => {
      const app = await createTestApp({ env: { MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE: 'health' } });
      try {
        const http = request(app.getHttpServer());
        const notFound = await http.get('/actuator/info').expect(404);
        expect(Object.keys(notFound.body)).toEqual(SPRING_ERROR_KEYS);
        expect(notFound.body.message).toBe('No endpoint GET "/actuator/info".');
        await http.get('/actuator/health').expect(200);
        expect(Object.keys((await http.get('/actuator').expect(200)).body._links)).toEqual(['self', 'health', 'health-path']);
      } finally {
        await app.close();
      }
    });

    it('serves neither health nor its probes when only info is exposed', async () => {
      const app = await createTestApp({ env: { ...PROBES_ON, MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE: 'info' } });
      try {
        const http = request(app.getHttpServer());
        await http.get('/actuator/health').expect(404);
        await http.get('/actuator/health/liveness').expect(404);
        await http.get('/actuator/info').expect(200);
        expect(Object.keys((await http.get('/actuator').expect(200)).body._links)).toEqual(['self', 'info']);
      } finally {
        await app.close();
      }
    });

    it('takes app name, description and version from INFO_APP_* when set', async () => {
      const app = await createTestApp({ env: { INFO_APP_NAME: 'helpdesk', INFO_APP_DESCRIPTION: 'IT desk', INFO_APP_VERSION: '2.0.0' } });
      try {
        const { body } = await request(app.getHttpServer()).get('/actuator/info').expect(200);
        expect(body.app).toEqual({ name: 'helpdesk', description: 'IT desk', version: '2.0.0' });
        expect(body.build.version).toBe('1.0.0');
      } finally {
        await app.close();
      }
    });

    it('leaves the database out of readiness when MANAGEMENT_ENDPOINT_HEALTH_GROUP_READINESS_INCLUDE says so', async () => {
      const proxy = await TcpProxy.start(3306);
      const app = await createTestApp({
        env: { ...PROBES_ON, DB_PORT: String(proxy.port), MANAGEMENT_ENDPOINT_HEALTH_GROUP_READINESS_INCLUDE: 'readinessState' },
      });
      try {
        proxy.cut();
        await request(app.getHttpServer()).get('/actuator/health').expect(503);
        await request(app.getHttpServer()).get('/actuator/health/readiness').expect(200);
      } finally {
        proxy.restore();
        await app.close();
        await proxy.stop();
      }
    });
  });
});
