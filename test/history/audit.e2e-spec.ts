import { randomUUID } from 'node:crypto';
import { TestIssuer } from '../support/test-issuer.js';
import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

const JWT = 'SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_';
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('Who wrote what, once bearer tokens are on', () => {
  let issuer: TestIssuer;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    issuer = await TestIssuer.start();
    await issuer.addKey('rsa-1', 'RS256');
    Object.assign(env, { [`${JWT}ISSUERURI`]: issuer.url });
  });
  const testApp = useTestApp({ env });
  afterAll(() => issuer.stop());

  const writer = (sub: string) => issuer.token({ claims: { sub, scope: 'tickets.read tickets.write' } });

  it("records the token's subject as the actor of every history entry", async () => {
    const alice = bearer(await writer('alice'));
    const bob = bearer(await writer('bob'));
    const { body: ticket } = await testApp.http.post('/api/tickets').set(alice).send(buildTicketRequest()).expect(201);
    await testApp.http
      .put(`/api/tickets/${ticket.id}`)
      .set(bob)
      .send(buildTicketRequest({ status: 'IN_PROGRESS' }))
      .expect(200);
    await testApp.http.post(`/api/tickets/${ticket.id}/comments`).set(alice).send({ body: 'Looking into it' }).expect(201);

    const { body: history } = await testApp.http.get(`/api/tickets/${ticket.id}/history`).set(alice).expect(200);
    expect(history.map((entry: { action: string; actor: string }) => [entry.action, entry.actor])).toEqual([
      ['CREATED', 'alice'],
      ['UPDATED', 'bob'],
      ['COMMENTED', 'alice'],
    ]);
  });

  it("makes the token's subject the author of a comment that names none, and keeps an author that is given", async () => {
    const carol = bearer(await writer('carol'));
    const { body: ticket } = await testApp.http.post('/api/tickets').set(carol).send(buildTicketRequest()).expect(201);
    const { body: own } = await testApp.http
      .post(`/api/tickets/${ticket.id}/comments`)
      .set(carol)
      .send({ body: 'Called the user' })
      .expect(201);
    const { body: named } = await testApp.http
      .post(`/api/tickets/${ticket.id}/comments`)
      .set(carol)
      .send({ body: 'On behalf of the desk', author: 'helpdesk@example.com' })
      .expect(201);
    expect([own.author, named.author]).toEqual(['carol', 'helpdesk@example.com']);
  });

  it('keeps idempotency keys apart per subject: the same key from another client runs its own request', async () => {
    const key = randomUUID();
    const request = buildTicketRequest();
    const first = await testApp.http
      .post('/api/tickets')
      .set(bearer(await writer('dave')))
      .set('Idempotency-Key', key)
      .send(request)
      .expect(201);
    const replay = await testApp.http
      .post('/api/tickets')
      .set(bearer(await writer('dave')))
      .set('Idempotency-Key', key)
      .send(request)
      .expect(201);
    const other = await testApp.http
      .post('/api/tickets')
      .set(bearer(await writer('erin')))
      .set('Idempotency-Key', key)
      .send(request)
      .expect(201);

    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.body.id).not.toBe(first.body.id);
  });

  it('keeps the keys of subjects that differ only in trailing spaces apart', async () => {
    const key = randomUUID();
    const request = buildTicketRequest();
    const alice = await testApp.http
      .post('/api/tickets')
      .set(bearer(await writer('alice')))
      .set('Idempotency-Key', key)
      .send(request)
      .expect(201);
    const spaced = await testApp.http
      .post('/api/tickets')
      .set(bearer(await writer('alice  ')))
      .set('Idempotency-Key', key)
      .send(request)
      .expect(201);

    expect(spaced.headers['idempotent-replayed']).toBeUndefined();
    expect(spaced.body.id).not.toBe(alice.body.id);
  });

  it('answers 400 saying why to an Idempotency-Key with a token that names no client, and creates without the key', async () => {
    const anonymous = bearer(await issuer.token({ claims: { sub: undefined, scope: 'tickets.read tickets.write' } }));
    const refused = await testApp.http
      .post('/api/tickets')
      .set(anonymous)
      .set('Idempotency-Key', randomUUID())
      .send(buildTicketRequest())
      .expect(400);
    expect(refused.body.message).toBe(
      'Idempotency-Key needs a token that names its client (sub, client_id or azp): keys are kept per client',
    );
    const problem = await testApp.http
      .post('/api/v2/tickets')
      .set(anonymous)
      .set('Idempotency-Key', randomUUID())
      .send(buildTicketRequest())
      .expect(400);
    expect(problem.body.detail).toBe(refused.body.message);
    await testApp.http.post('/api/tickets').set(anonymous).send(buildTicketRequest()).expect(201);
  });

  it('refuses a token whose subject is longer than 255 characters with 401 invalid_token on every write, and keeps one of 255 whole', async () => {
    const long = 'a'.repeat(256);
    const { body: ticket } = await testApp.http
      .post('/api/tickets')
      .set(bearer(await writer('frank')))
      .send(buildTicketRequest())
      .expect(201);
    for (const claims of [{ sub: long }, { sub: undefined, client_id: long }, { sub: undefined, azp: long }]) {
      const token = bearer(await issuer.token({ claims: { ...claims, scope: 'tickets.read tickets.write' } }));
      const writes = [
        testApp.http.post('/api/tickets').set(token).set('Idempotency-Key', randomUUID()).send(buildTicketRequest()),
        testApp.http.put(`/api/tickets/${ticket.id}`).set(token).send(buildTicketRequest()),
        testApp.http.patch(`/api/tickets/${ticket.id}`).set(token).set('Content-Type', 'application/merge-patch+json').send({ title: 'x' }),
        testApp.http.post(`/api/tickets/${ticket.id}/comments`).set(token).send({ body: 'Hello' }),
      ];
      for (const response of await Promise.all(writes)) {
        expect([response.status, response.headers['www-authenticate']]).toEqual([
          401,
          expect.stringMatching(/^Bearer error="invalid_token", error_description=".*claim is longer than 255 characters"/),
        ]);
      }
    }

    const widest = '😀'.repeat(255);
    const created = await testApp.http
      .post('/api/tickets')
      .set(bearer(await writer(widest)))
      .set('Idempotency-Key', randomUUID())
      .send(buildTicketRequest())
      .expect(201);
    const { body: history } = await testApp.http
      .get(`/api/tickets/${created.body.id}/history`)
      .set(bearer(await writer('frank')))
      .expect(200);
    expect(history[0].actor).toBe(widest);
  });
});
