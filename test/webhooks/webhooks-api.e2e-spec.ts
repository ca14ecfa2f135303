import { expectProblem } from '../support/problem-json.js';
import { WebhookDnsServer } from '../support/webhook-dns-server.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { useTestApp } from '../support/test-app.js';
import { TestIssuer } from '../support/test-issuer.js';

type Json = Record<string, any>;

const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
const JWT = 'SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_';

describe('Webhook endpoints API', () => {
  describe('with private networks allowed (development)', () => {
    const created: number[] = [];
    // Declared before the app, so that it runs before the app's own afterAll closes it (hooks run in declaration
    // order); a test may have deleted its endpoint already.
    afterAll(async () => {
      for (const id of created) expect([204, 404]).toContain((await http().delete(`/api/v2/webhooks/${id}`)).status);
    });
    const testApp = useTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOKS_CONCURRENCY: '0' } });
    const http = () => testApp.http;
    const create = async (body: Json) => {
      const response = await http().post('/api/v2/webhooks').send(body).expect(201);
      created.push(response.body.id);
      return response;
    };

    it('answers 201 with the endpoint, enabled, and a whsec_ secret of 24-64 random bytes shown only there', async () => {
      const response = await create({ url: 'http://127.0.0.1:9/hook', eventTypes: ['CREATED', 'COMMENT_ADDED'], description: 'chat' });
      expect(response.body).toEqual({
        id: expect.any(Number),
        url: 'http://127.0.0.1:9/hook',
        description: 'chat',
        eventTypes: ['CREATED', 'COMMENT_ADDED'],
        enabled: true,
        disabledReason: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        secret: expect.stringMatching(SECRET),
      });
      const bytes = Buffer.from(response.body.secret.slice('whsec_'.length), 'base64').length;
      expect(bytes).toBeGreaterThanOrEqual(24);
      expect(bytes).toBeLessThanOrEqual(64);
      expect(response.headers.location).toBe(`/api/v2/webhooks/${response.body.id}`);
      const read = await http().get(response.headers.location).expect(200);
      expect(read.body).not.toHaveProperty('secret');
      expect(JSON.stringify(read.body)).not.toContain(response.body.secret);
    });

    it('subscribes to every kind when eventTypes is empty or absent', async () => {
      expect((await create({ url: 'http://127.0.0.1:9/a' })).body.eventTypes).toEqual([]);
      expect((await create({ url: 'http://127.0.0.1:9/b', eventTypes: [] })).body.eventTypes).toEqual([]);
    });

    it('lists endpoints in pages with a cursor, oldest first', async () => {
      for (let i = 0; i < 3; i++) await create({ url: `http://127.0.0.1:9/page-${i}` });
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const page: Json = (
          await http()
            .get('/api/v2/webhooks')
            .query({ limit: 2, ...(cursor && { cursor }) })
            .expect(200)
        ).body;
        seen.push(...page.items.map((item: Json) => item.id));
        page.items.forEach((item: Json) => expect(item).not.toHaveProperty('secret'));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(seen).toEqual(expect.arrayContaining(created));
    });

    it('patches url, eventTypes, enabled and description; the secret stays', async () => {
      const { body } = await create({ url: 'http://127.0.0.1:9/old' });
      const patched = await http()
        .patch(`/api/v2/webhooks/${body.id}`)
        .send({ url: 'http://127.0.0.1:9/new', eventTypes: ['DELETED'], enabled: false, description: 'x' })
        .expect(200);
      expect(patched.body).toMatchObject({ url: 'http://127.0.0.1:9/new', eventTypes: ['DELETED'], enabled: false, description: 'x' });
      expect(patched.body.disabledReason).toEqual(expect.any(String));
      const enabled = await http().patch(`/api/v2/webhooks/${body.id}`).send({ enabled: true }).expect(200);
      expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, url: 'http://127.0.0.1:9/new' });
    });

    it('rotates the secret: a new one in the answer, different from the old', async () => {
      const { body } = await create({ url: 'http://127.0.0.1:9/rotate' });
      const rotated = await http().post(`/api/v2/webhooks/${body.id}/rotate-secret`).expect(200);
      expect(rotated.body.secret).toMatch(SECRET);
      expect(rotated.body.secret).not.toBe(body.secret);
      // A second rotation within the overlap would drop the secret receivers may still be using.
      const again = await http().post(`/api/v2/webhooks/${body.id}/rotate-secret`);
      expect(again.status).toBe(409);
    });

    it('deletes: 204, then 404 as problem+json for it and its deliveries', async () => {
      const { body } = await create({ url: 'http://127.0.0.1:9/gone' });
      await http().delete(`/api/v2/webhooks/${body.id}`).expect(204);
      const path = `/api/v2/webhooks/${body.id}`;
      for (const response of [
        await http().get(path),
        await http().get(`${path}/deliveries`),
        await http().delete(path),
        await http().post(`${path}/rotate-secret`),
      ]) {
        expectProblem(asHttpResponse(response), 404);
        expect(response.body.detail).toBe(`Webhook not found with id: ${body.id}`);
      }
    });

    it('answers 400 naming the field for a missing url, unknown event types, wrong types, and a bad id', async () => {
      const missing = await http()
        .post('/api/v2/webhooks')
        .send({ eventTypes: ['CREATED'] });
      expectProblem(asHttpResponse(missing), 400, '/api/v2/webhooks');
      expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'url', code: 'NotBlank' })]);
      const unknown = await http()
        .post('/api/v2/webhooks')
        .send({ url: 'http://127.0.0.1:9/', eventTypes: ['CREATED', 'EXPLODED'] });
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors).toEqual([expect.objectContaining({ field: 'eventTypes', code: 'UnknownEventType' })]);
      const notList = await http().post('/api/v2/webhooks').send({ url: 'http://127.0.0.1:9/', eventTypes: 'CREATED' });
      expect(notList.body.errors).toEqual([expect.objectContaining({ field: 'eventTypes', code: 'typeMismatch' })]);
      const notBoolean = await http().patch('/api/v2/webhooks/1').send({ enabled: 'yes' });
      expect(notBoolean.body.errors).toEqual([expect.objectContaining({ field: 'enabled', code: 'typeMismatch' })]);
      expect((await http().get('/api/v2/webhooks/abc')).status).toBe(400);
      expect((await http().post('/api/v2/webhooks').set('Content-Type', 'text/plain').send('x')).status).toBe(415);
    });

    it('answers 400 for a replay without since, and for unknown parameters', async () => {
      const { body } = await create({ url: 'http://127.0.0.1:9/replay' });
      const response = await http().post(`/api/v2/webhooks/${body.id}/replay`).query({ until: 'yesterday', extra: '1' });
      expect(response.status).toBe(400);
      expect(response.body.errors.map((error: Json) => error.field).sort()).toEqual(['extra', 'since', 'until']);
    });

    it('answers 400 for a replay whose since is later than until (or than now), 202 for an empty window', async () => {
      const { body } = await create({ url: 'http://127.0.0.1:9/replay-window' });
      const path = `/api/v2/webhooks/${body.id}/replay`;
      const reversed = await http().post(path).query({ since: '2026-11-23T10:00:00Z', until: '2026-11-23T09:00:00Z' });
      expectProblem(asHttpResponse(reversed), 400, path);
      expect(reversed.body.errors).toEqual([
        {
          field: 'since',
          code: 'Range',
          message: 'since must not be later than until',
          rejectedValue: '2026-11-23T10:00:00Z',
        },
      ]);
      const future = await http()
        .post(path)
        .query({ since: new Date(Date.now() + 3_600_000).toISOString() });
      expect(future.status).toBe(400);
      expect(future.body.errors).toEqual([
        expect.objectContaining({ field: 'since', message: 'since must not be later than now (until is absent)' }),
      ]);
      const empty = await http().post(path).query({ since: '2026-11-23T09:00:00Z', until: '2026-11-23T09:00:00Z' }).expect(202);
      expect(empty.body).toEqual({ replayed: 0 });
    });

    it.each([
      ['http://127.0.0.1:9/a\r\nX-Injected: 1', 'U+000D at position 20'],
      ['http://127.0.0.1:9/a\nb', 'U+000A'],
      ['http://127.0.0.1:9/a\tb', 'U+0009'],
      ['http://127.0.0.1:9/a b', 'U+0020'],
      [' http://127.0.0.1:9/a', 'U+0020 at position 0'],
      ['http://127.0.0.1:9/a\u0000', 'U+0000'],
      ['http://127.0.0.1:9/a\u200b', 'U+200B'],
      ['http://127.0.0.1:0/a', 'has port 0, outside 1-65535'],
      ['http://127.0.0.1:65536/a', 'has port 65536, outside 1-65535'],
    ])('refuses %j even with private networks allowed: 400 naming the reason (%s)', async (url, reason) => {
      for (const response of [
        await http().post('/api/v2/webhooks').send({ url }),
        await http().patch(`/api/v2/webhooks/${created[0]}`).send({ url }),
      ]) {
        expectProblem(asHttpResponse(response), 400);
        expect(response.body.errors).toEqual([
          { field: 'url', code: 'UnsafeUrl', message: expect.stringContaining(reason), rejectedValue: url },
        ]);
      }
      expect((await http().get(`/api/v2/webhooks/${created[0]}`).expect(200)).body.url).not.toBe(url);
    });

    it('stores and shows the URL as it is called: the WHATWG serialisation of the one given', async () => {
      const { body } = await create({ url: 'HTTP://LocalHost:9/a/./b/../c?q=é' });
      expect(body.url).toBe('http://localhost:9/a/c?q=%C3%A9');
      expect((await http().get(`/api/v2/webhooks/${body.id}`).expect(200)).body.url).toBe('http://localhost:9/a/c?q=%C3%A9');
      const patched = await http().patch(`/api/v2/webhooks/${body.id}`).send({ url: 'http://[0:0::1]:80/x' }).expect(200);
      expect(patched.body.url).toBe('http://[::1]/x');
    });
  });

  describe('by default (public https:// only)', () => {
    const testApp = useTestApp({ env: { WEBHOOKS_CONCURRENCY: '0' } });

    it.each([
      ['http://hooks.example.com/', 'must use https://'],
      ['https://user:secret@hooks.example.com/', 'must not carry credentials'],
      ['https://localhost:8443/', /resolves to (127\.0\.0\.1|::1), which is loopback/],
      ['https://127.0.0.1/', 'which is loopback'],
      ['https://10.1.2.3/', 'which is private (RFC 1918)'],
      ['https://192.168.0.10/', 'which is private (RFC 1918)'],
      ['https://172.20.0.1/', 'which is private (RFC 1918)'],
      ['https://100.100.0.1/', 'carrier-grade NAT'],
      ['https://169.254.169.254/latest/meta-data/', 'which is the cloud metadata service (AWS, Google Cloud, Azure'],
      ['https://168.63.129.16/machine?comp=goalstate', "which is Azure's platform endpoint (WireServer)"],
      ['https://100.100.100.200/latest/meta-data/', 'which is the cloud metadata service (Alibaba Cloud)'],
      ['https://[fd00:ec2::254]/latest/meta-data/', 'which is the cloud metadata service (AWS, IPv6)'],
      ['https://[::ffff:a83f:8110]/', "Azure's platform endpoint (WireServer) (IPv4 168.63.129.16 inside an IPv6 address)"],
      ['https://metadata.google.internal/computeMetadata/v1/', 'which is the name of a cloud metadata service'],
      ['https://169.254.1.1/', 'which is link-local'],
      ['https://[::127.0.0.1]/', 'which is reserved'],
      ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'Teredo'],
      ['https://[64:ff9b::7f00:1]/', 'loopback (IPv4 127.0.0.1 inside an IPv6 address)'],
      ['https://[2002:a00:1::1]/', 'private (RFC 1918) (IPv4 10.0.0.1 inside an IPv6 address)'],
      ['https://93.184.216.34:0/', 'has port 0, outside 1-65535'],
      ['https://93.184.216.34/a\r\nX-Injected: 1', 'must not contain whitespace or control characters (U+000D'],
      ['https://[::1]/', 'which is loopback'],
      ['https://[fd00::1]/', 'unique local'],
      ['https://[fe80::1]/', 'link-local'],
      ['https://[::ffff:127.0.0.1]/', 'loopback (IPv4 127.0.0.1 inside an IPv6 address)'],
      ['https://[::ffff:169.254.169.254]/', '(IPv4 169.254.169.254 inside an IPv6 address)'],
      ['https://2130706433/', 'which is loopback'],
      ['https://224.0.0.1/', 'multicast'],
      ['https://0.0.0.0/', 'unspecified'],
    ])('refuses %s at registration with a 400 naming the reason (%s)', async (url, reason) => {
      const response = await testApp.http.post('/api/v2/webhooks').send({ url });
      expectProblem(asHttpResponse(response), 400, '/api/v2/webhooks');
      expect(response.body.errors).toEqual([
        {
          field: 'url',
          code: 'UnsafeUrl',
          message: typeof reason === 'string' ? expect.stringContaining(reason) : expect.stringMatching(reason),
          rejectedValue: url,
        },
      ]);
    });

    it('checks a changed URL on PATCH too', async () => {
      const response = await testApp.http.patch('/api/v2/webhooks/1').send({ url: 'https://127.0.0.1/' });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([expect.objectContaining({ field: 'url', code: 'UnsafeUrl' })]);
    });
  });

  describe('with a DNS server that answers late or never', () => {
    let dns: WebhookDnsServer;
    // The database deadline (DB_QUERY_TIMEOUT_MS) is shorter than the resolution's bound (WEBHOOKS_TIMEOUT_MS): a
    // resolution inside it would answer 503.
    const env: Record<string, string> = { WEBHOOKS_CONCURRENCY: '0', WEBHOOKS_TIMEOUT_MS: '1500', DB_QUERY_TIMEOUT_MS: '500' };
    beforeAll(async () => {
      dns = await WebhookDnsServer.start();
      dns.answers.set('silent.example', { silent: true });
      dns.answers.set('late.example', { addresses: ['93.184.216.34'], delayMs: 900 });
      dns.answers.set('late-azure.example', { addresses: ['93.184.216.34', '168.63.129.16'], delayMs: 900 });
      env.WEBHOOKS_DNS_SERVERS = dns.address;
    });
    const testApp = useTestApp({ env });
    afterAll(() => dns.stop());

    it('answers 400 "does not resolve" at WEBHOOKS_TIMEOUT_MS for a name whose DNS never answers, never a database timeout', async () => {
      for (const send of [
        () => testApp.http.post('/api/v2/webhooks').send({ url: 'https://silent.example/hook' }),
        () => testApp.http.patch('/api/v2/webhooks/1').send({ url: 'https://silent.example/hook' }),
      ]) {
        const started = Date.now();
        const response = await send();
        const elapsed = Date.now() - started;
        expectProblem(asHttpResponse(response), 400);
        expect(response.body.errors).toEqual([
          {
            field: 'url',
            code: 'UnsafeUrl',
            message: 'The URL host silent.example does not resolve (no answer within 1500 ms)',
            rejectedValue: 'https://silent.example/hook',
          },
        ]);
        expect(elapsed).toBeGreaterThanOrEqual(1_400);
        expect(elapsed).toBeLessThan(4_000);
      }
      expect(dns.questions.filter((q) => q.name === 'silent.example').length).toBeGreaterThanOrEqual(2);
    });

    it('registers a name whose answer comes later than the database deadline but within the bound', async () => {
      const response = await testApp.http.post('/api/v2/webhooks').send({ url: 'https://late.example/hook' });
      expect(response.status).toBe(201);
      expect(response.body.url).toBe('https://late.example/hook');
      await testApp.http.delete(`/api/v2/webhooks/${response.body.id}`).expect(204);
    });

    it('refuses a name that resolves, late, to a platform address among public ones', async () => {
      const response = await testApp.http.post('/api/v2/webhooks').send({ url: 'https://late-azure.example/' });
      expect(response.status).toBe(400);
      expect(response.body.errors[0].message).toBe("The URL resolves to 168.63.129.16, which is Azure's platform endpoint (WireServer)");
    });
  });

  describe('with bearer tokens on', () => {
    let issuer: TestIssuer;
    const env: Record<string, string> = { WEBHOOKS_CONCURRENCY: '0' };
    beforeAll(async () => {
      issuer = await TestIssuer.start();
      await issuer.addKey('rsa-1', 'RS256');
      Object.assign(env, { [`${JWT}ISSUERURI`]: issuer.url });
    });
    const testApp = useTestApp({ env });
    afterAll(() => issuer.stop());

    it('needs the webhooks.manage scope, which tickets.write does not grant', async () => {
      const writer = await issuer.token({ claims: { scope: 'tickets.read tickets.write' } });
      const manager = await issuer.token({ claims: { scope: 'webhooks.manage' } });
      const refused = await testApp.http.get('/api/v2/webhooks').set('Authorization', `Bearer ${writer}`);
      expect(refused.status).toBe(403);
      expect(refused.headers['www-authenticate']).toContain('scope="webhooks.manage"');
      await testApp.http.get('/api/v2/webhooks').set('Authorization', `Bearer ${manager}`).expect(200);
      expect((await testApp.http.get('/api/v2/webhooks')).status).toBe(401);
    });
  });
});
