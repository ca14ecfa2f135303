import { useTestApp } from '../support/test-app.js';
import { TestIssuer } from '../support/test-issuer.js';
import { newSender, rawMail } from '../support/raw-mail.js';

const JWT = 'SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_';
const issuer = await TestIssuer.start();
await issuer.addKey('rsa-1', 'RS256');

afterAll(() => issuer.stop());

const bearer = async (claims: Record<string, unknown>) => ({ Authorization: `Bearer ${await issuer.token({ claims })}` });

describe('Email with tokens on: its own scope, and the desk’s view of notifications', () => {
  const handle = useTestApp({ env: { [`${JWT}ISSUERURI`]: issuer.url, [`${JWT}AUDIENCES`]: 'ticket-service' } });

  it('hands raw mail in with mail.inbound only: an agent’s scopes do not reach it, nor does it reach the tickets', async () => {
    const message = () => rawMail({ from: newSender() });
    const post = async (claims: Record<string, unknown>) =>
      handle.http
        .post('/api/v2/inbound-email')
        .set(await bearer(claims))
        .set('Content-Type', 'message/rfc822')
        .send(message());
    expect((await handle.http.post('/api/v2/inbound-email').set('Content-Type', 'message/rfc822').send(message())).status).toBe(401);
    expect((await post({ scope: 'tickets.read tickets.write' })).status).toBe(403);
    const accepted = await post({ scope: 'mail.inbound' });
    expect(accepted.status).toBe(200);
    expect(accepted.body.outcome).toBe('created');
    expect((await handle.http.get('/api/v2/tickets').set(await bearer({ scope: 'mail.inbound' }))).status).toBe(403);
  });

  it('lists a ticket’s notifications to agents, never to its requester', async () => {
    const requester = newSender();
    const agent = await bearer({ scope: 'tickets.read tickets.write' });
    const body = { title: 'VPN', description: 'Drops', status: 'OPEN', priority: 'LOW', requesterEmail: requester };
    const id = (await handle.http.post('/api/v2/tickets').set(agent).send(body).expect(201)).body.id;
    expect((await handle.http.get(`/api/v2/tickets/${id}/notifications`).set(agent).expect(200)).body).toEqual({
      items: [],
      nextCursor: null,
    });
    const own = await bearer({ scope: 'tickets.requester', email: requester, sub: requester });
    expect((await handle.http.get(`/api/v2/tickets/${id}`).set(own)).status).toBe(200);
    expect((await handle.http.get(`/api/v2/tickets/${id}/notifications`).set(own)).status).toBe(403);
  });
});
