import { useTestApp } from '../support/test-app.js';
import { TestIssuer } from '../support/test-issuer.js';

const JWT = 'SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_';
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('Change feed with bearer tokens on', () => {
  let issuer: TestIssuer;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    issuer = await TestIssuer.start();
    await issuer.addKey('rsa-1', 'RS256');
    Object.assign(env, { [`${JWT}ISSUERURI`]: issuer.url, [`${JWT}AUDIENCES`]: 'ticket-service' });
  });
  const testApp = useTestApp({ env });
  afterAll(() => issuer.stop());

  it('needs the read scope the v2 ticket list needs, for JSON and for Server-Sent Events', async () => {
    await testApp.http.get('/api/v2/changes').expect(401);
    const other = await issuer.token({ claims: { scope: 'profile' } });
    await testApp.http.get('/api/v2/changes').set(bearer(other)).expect(403);
    await testApp.http.get('/api/v2/changes').set('Accept', 'text/event-stream').set(bearer(other)).expect(403);
    for (const scope of ['tickets.read', 'tickets.write']) {
      const token = await issuer.token({ claims: { scope } });
      await testApp.http.get('/api/v2/tickets').set(bearer(token)).expect(200);
      await testApp.http.get('/api/v2/changes').set(bearer(token)).expect(200);
    }
  });
});
