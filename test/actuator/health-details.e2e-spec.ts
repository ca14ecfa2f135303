import { untilReady, useTestApp } from '../support/test-app.js';
import { TestIssuer } from '../support/test-issuer.js';

const COMPONENTS = ['db', 'diskSpace', 'outbox', 'ping', 'rabbit'];
const PROBES_ON = { MANAGEMENT_HEALTH_PROBES_ENABLED: 'true' };

describe('Health details by authorization (MANAGEMENT_ENDPOINT_HEALTH_SHOWDETAILS)', () => {
  describe('never', () => {
    const testApp = useTestApp({ env: { MANAGEMENT_ENDPOINT_HEALTH_SHOWDETAILS: 'never', ...PROBES_ON } });
    // With the probes on, readiness (and so the overall status) is OUT_OF_SERVICE until start-up work is done, which
    // takes longer while other suites load the machine: the test asks once the app says it is ready, as a probe would.
    beforeAll(() => untilReady(testApp.app));

    it('answers the overall status and the groups only, as Spring does when show-components follows show-details', async () => {
      const response = await testApp.http.get('/actuator/health').expect(200);
      expect(response.text).toBe('{"status":"UP","groups":["liveness","readiness"]}');
    });

    it('does not find a component, but the probes still answer their status anonymously', async () => {
      await testApp.http.get('/actuator/health/db').expect(404);
      expect((await testApp.http.get('/actuator/health/liveness').expect(200)).text).toBe('{"status":"UP"}');
      expect((await testApp.http.get('/actuator/health/readiness').expect(200)).text).toBe('{"status":"UP"}');
    });
  });

  describe('never, with MANAGEMENT_ENDPOINT_HEALTH_SHOW_COMPONENTS=always', () => {
    const testApp = useTestApp({
      env: { MANAGEMENT_ENDPOINT_HEALTH_SHOW_DETAILS: 'never', MANAGEMENT_ENDPOINT_HEALTH_SHOW_COMPONENTS: 'always' },
    });

    it('lists each component with its status alone', async () => {
      const { body } = await testApp.http.get('/actuator/health').expect(200);
      expect(body).toEqual({ status: 'UP', components: Object.fromEntries(COMPONENTS.map((name) => [name, { status: 'UP' }])) });
      expect((await testApp.http.get('/actuator/health/db').expect(200)).text).toBe('{"status":"UP"}');
    });
  });

  describe('when-authorized, with bearer tokens on', () => {
    let issuer: TestIssuer;
    const env: Record<string, string> = { MANAGEMENT_ENDPOINT_HEALTH_SHOWDETAILS: 'when-authorized' };
    beforeAll(async () => {
      issuer = await TestIssuer.start();
      await issuer.addKey('rsa-1', 'RS256');
      env.SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUERURI = issuer.url;
    });
    const testApp = useTestApp({ env });
    afterAll(() => issuer.stop());

    it('shows the status alone to a request without a token', async () => {
      expect((await testApp.http.get('/actuator/health').expect(200)).text).toBe('{"status":"UP"}');
      await testApp.http.get('/actuator/health/db').expect(404);
    });

    it('shows the status alone to a token without actuator.read', async () => {
      const token = await issuer.token({ claims: { scope: 'tickets.read tickets.write' } });
      expect((await testApp.http.get('/actuator/health').set('Authorization', `Bearer ${token}`).expect(200)).text).toBe('{"status":"UP"}');
    });

    it('shows every component with its details to a token with actuator.read', async () => {
      const token = await issuer.token({ claims: { scope: 'actuator.read' } });
      const { body } = await testApp.http.get('/actuator/health').set('Authorization', `Bearer ${token}`).expect(200);
      expect(Object.keys(body.components)).toEqual(COMPONENTS);
      expect(body.components.db.details).toEqual({ database: 'MariaDB', validationQuery: 'isValid()' });
      const db = await testApp.http.get('/actuator/health/db').set('Authorization', `Bearer ${token}`).expect(200);
      expect(db.body.details.database).toBe('MariaDB');
    });
  });

  describe('when-authorized, with bearer tokens off', () => {
    const testApp = useTestApp({ env: { MANAGEMENT_ENDPOINT_HEALTH_SHOWDETAILS: 'when-authorized' } });

    it('shows no one the details: there is no one to authorize', async () => {
      expect((await testApp.http.get('/actuator/health').set('Authorization', 'Bearer abc.def.ghi').expect(200)).text).toBe(
        '{"status":"UP"}',
      );
    });
  });

  describe('always (the default), with a token that is not checked', () => {
    const testApp = useTestApp();

    it('shows every detail to anyone', async () => {
      const { body } = await testApp.http.get('/actuator/health').expect(200);
      expect(Object.keys(body)).toEqual(['status', 'components']);
      expect(body.components.rabbit.details.version).toEqual(expect.any(String));
    });
  });
});
