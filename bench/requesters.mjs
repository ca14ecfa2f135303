// A requester's list and search beside an agent's, on the 1,000,000 tickets bench/queries.mjs seeds: the same
// service with bearer tokens on (an issuer of the bench's own), one agent token, and requester tokens of one person
// (200 tickets) and of a member of a 25-member organization that shares its tickets (5,000).
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startProcess } from './process.mjs';

const PORT = 18087;
const JWT = 'SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_';

/** An issuer on a local port: its discovery document, its key set, and tokens signed with its key. */
async function startIssuer() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
  const server = createServer((request, response) => {
    const url = `http://127.0.0.1:${server.address().port}`;
    response.setHeader('content-type', 'application/json');
    if (request.url === '/.well-known/openid-configuration') response.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks` }));
    else if (request.url === '/jwks') response.end(JSON.stringify({ keys: [jwk] }));
    else response.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const token = (claims) =>
    new SignJWT({ aud: 'ticket-service', sub: claims.email ?? 'agent', ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: 'bench' })
      .setIssuer(url)
      .setIssuedAt()
      .setExpirationTime('2h')
      .sign(privateKey);
  return { url, token, stop: () => new Promise((resolve) => server.close(resolve)) };
}

/** The rows, each measured by `measure` (bench/queries.mjs): each read as an agent, as a requester alone, and as a member of a sharing organization. */
export async function requesterBench({ root, env, seconds, connections, measure }) {
  const issuer = await startIssuer();
  const service = await startProcess('service (requesters)', ['dist/main.js'], {
    cwd: root,
    port: PORT,
    env: { ...env, [`${JWT}ISSUERURI`]: issuer.url, [`${JWT}AUDIENCES`]: 'ticket-service' },
  });
  try {
    const agent = `Bearer ${await issuer.token({ scope: 'tickets.read tickets.write organizations.manage' })}`;
    // user0..user4999@example.com have 200 tickets each; 25 of them form an organization that shares its tickets.
    const members = Array.from({ length: 25 }, (_, i) => `user${1000 + i}@example.com`);
    const organization = await fetch(`${service.url}/api/v2/organizations`, {
      method: 'POST',
      headers: { authorization: agent, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench team', members, sharedTickets: true }),
    });
    if (organization.status !== 201)
      throw new Error(`creating the organization answered ${organization.status}: ${await organization.text()}`);
    const alone = `Bearer ${await issuer.token({ scope: 'tickets.requester', email: 'user7@example.com' })}`;
    const member = `Bearer ${await issuer.token({ scope: 'tickets.requester', email: members[0] })}`;
    const options = { seconds, connections };
    const list = '/api/v2/tickets?sort=-updatedAt';
    const search = '/api/v2/tickets?q=printer';
    const results = [];
    for (const [who, authorization] of [
      ['agent (1,000,000 tickets)', agent],
      ['requester (200 tickets)', alone],
      ['requester sharing with 25 (5,000 tickets)', member],
    ]) {
      const as = { ...options, headers: { authorization } };
      results.push(await measure(service.url, `${who}: list, first page + total`, list, as));
      results.push(await measure(service.url, `${who}: search q=printer, first page + total`, search, as));
    }
    console.table(results);
    return { connections, seconds, results };
  } finally {
    await service.stop();
    await issuer.stop();
  }
}
