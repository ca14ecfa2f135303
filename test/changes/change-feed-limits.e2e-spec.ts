import type { INestApplication } from '@nestjs/common';
import { SseClient } from '../support/change-feed.js';
import { listen } from '../support/http-client.js';
import { expectProblem } from '../support/problem-json.js';
import { createTestApp } from '../support/test-app.js';
import { TestIssuer } from '../support/test-issuer.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { waitUntil } from '../support/waits.js';

type Json = Record<string, any>;

const JWT = 'SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_';
/** The clock skew every token check allows (Spring's 60 s): a token is accepted until its exp plus this. */
const CLOCK_SKEW_SECONDS = 60;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function raw(baseUrl: string, query: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}/api/v2/changes${query}`, { headers, signal: AbortSignal.timeout(60_000) });
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
}

/** The cursor at the end of the feed as it is now. */
async function endCursor(baseUrl: string, headers: Record<string, string> = {}): Promise<string> {
  let query = '?limit=1000';
  for (;;) {
    const response = await raw(baseUrl, query, headers);
    expect(response.status).toBe(200);
    const page = JSON.parse(response.body) as { nextCursor: string; endOfStream: boolean };
    if (page.endOfStream) return page.nextCursor;
    query = `?limit=1000&after=${page.nextCursor}`;
  }
}

/** Opens a stream and waits for its status line. */
async function opened(client: SseClient): Promise<SseClient> {
  await client.waitFor(() => client.response !== undefined || client.ended);
  return client;
}

describe('Change feed streams and long-polls with bearer tokens', () => {
  let issuer: TestIssuer;
  let app: INestApplication;
  let baseUrl: string;
  const streams: SseClient[] = [];
  const stream = async (headers: Record<string, string>, query = '') => {
    const client = new SseClient(baseUrl, headers, query);
    streams.push(client);
    return opened(client);
  };
  /** A token of `sub` with `tickets.write` (which reads too) that the service accepts until about `secondsLeft` from now. */
  const token = async (secondsLeft = 300, sub = 'alice') => {
    const exp = Math.floor(Date.now() / 1000) + secondsLeft - CLOCK_SKEW_SECONDS;
    return {
      token: await issuer.token({ claims: { sub, scope: 'tickets.write', exp } }),
      acceptedUntil: (exp + CLOCK_SKEW_SECONDS) * 1000,
    };
  };
  const post = async (headers: Record<string, string>): Promise<Json> => {
    const response = await fetch(`${baseUrl}/api/tickets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(buildTicketRequest()),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as Json;
  };
  const ofTicket = (client: SseClient, id: number) => client.events().filter((event) => JSON.parse(event.data!).ticketId === id);

  beforeAll(async () => {
    issuer = await TestIssuer.start();
    await issuer.addKey('rsa-1', 'RS256');
    app = await createTestApp({
      env: { [`${JWT}ISSUERURI`]: issuer.url, [`${JWT}AUDIENCES`]: 'ticket-service', CHANGES_STREAMS_PER_CLIENT: '2' },
    });
    baseUrl = `http://127.0.0.1:${await listen(app)}`;
  });

  afterEach(() => {
    for (const client of streams.splice(0)) client.close();
  });

  afterAll(async () => {
    await app?.close();
    await issuer?.stop();
  });

  it('ends a stream when its token is no longer accepted, saying why, and resumes with a fresh token and Last-Event-ID', async () => {
    const alice = bearer((await token()).token);
    const start = await endCursor(baseUrl, alice);
    // Expired 50 s ago: accepted for 10 s more, within the clock skew.
    const short = await token(10);
    const client = await stream({ ...bearer(short.token), 'last-event-id': start });
    expect(client.response!.statusCode).toBe(200);

    const first = await post(alice);
    await client.waitFor(() => ofTicket(client, first.id).length === 1);
    await client.waitFor(() => client.ended, 30_000);
    const endedAt = Date.now();
    expect(endedAt).toBeGreaterThanOrEqual(short.acceptedUntil);
    expect(client.messages.at(-1)!.comment).toMatch(/^stream-end token-expired: /);

    // Nothing more with that token; a fresh one resumes right after the last event.
    const second = await post(alice);
    expect((await raw(baseUrl, '', { ...bearer(short.token), accept: 'text/event-stream' })).status).toBe(401);
    const resumed = await stream({ ...alice, 'last-event-id': ofTicket(client, first.id)[0].id! });
    await resumed.waitFor(() => ofTicket(resumed, second.id).length === 1);
    expect(ofTicket(resumed, first.id)).toEqual([]);
  });

  it('answers a long-poll when its token is no longer accepted, not at the end of a longer wait', async () => {
    const alice = bearer((await token()).token);
    const start = await endCursor(baseUrl, alice);
    const short = await token(4);
    const began = Date.now();
    const response = await raw(baseUrl, `?after=${start}&waitSeconds=30`, bearer(short.token));
    const answeredAt = Date.now();
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ items: [], nextCursor: start, endOfStream: true });
    expect(answeredAt).toBeGreaterThanOrEqual(short.acceptedUntil);
    expect(answeredAt - began).toBeLessThan(15_000);
  });

  it('holds at most CHANGES_STREAMS_PER_CLIENT streams and long-polls per subject: 429 problem+json with Retry-After past it', async () => {
    const alice = bearer((await token()).token);
    const bob = bearer((await token(300, 'bob')).token);
    const start = await endCursor(baseUrl, alice);
    const held = [await stream({ ...alice, 'last-event-id': start }), await stream({ ...alice, 'last-event-id': start })];
    for (const client of held) expect(client.response!.statusCode).toBe(200);

    const refused = await raw(baseUrl, '', { ...alice, accept: 'text/event-stream', 'last-event-id': start });
    const problem = expectProblem(refused, 429, '/api/v2/changes');
    expect(problem.detail).toBe(
      'Too many streams and long-polls of the change feed at once: at most 2 per client; end one, or retry later',
    );
    // The first of alice's streams ends with her token (exp + 60 s), at the latest.
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(200);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(300);
    expectProblem(await raw(baseUrl, `?after=${start}&waitSeconds=30`, alice), 429);
    // A page that does not wait holds nothing; another subject has slots of its own.
    expect((await raw(baseUrl, `?after=${start}`, alice)).status).toBe(200);
    expect((await stream({ ...bob, 'last-event-id': start })).response!.statusCode).toBe(200);

    held[0].close();
    await waitUntil(async () => (await raw(baseUrl, `?after=${start}&waitSeconds=1`, alice)).status === 200, 20_000);
  });
});

describe('Change feed streams and long-polls without tokens', () => {
  it('holds at most CHANGES_STREAMS_PER_CLIENT streams per client address', async () => {
    const app = await createTestApp({ env: { CHANGES_STREAMS_PER_CLIENT: '2', SERVER_FORWARD_HEADERS_STRATEGY: 'native' } });
    const clients: SseClient[] = [];
    try {
      const baseUrl = `http://127.0.0.1:${await listen(app)}`;
      const start = await endCursor(baseUrl);
      const from = (address: string) => ({ 'x-forwarded-for': address, 'last-event-id': start });
      for (let i = 0; i < 2; i++) clients.push(await opened(new SseClient(baseUrl, from('203.0.113.5'))));
      for (const client of clients) expect(client.response!.statusCode).toBe(200);

      const refused = await raw(baseUrl, '', { ...from('203.0.113.5'), accept: 'text/event-stream' });
      expectProblem(refused, 429, '/api/v2/changes');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expectProblem(await raw(baseUrl, `?after=${start}&waitSeconds=30`, { 'x-forwarded-for': '203.0.113.5' }), 429);
      clients.push(await opened(new SseClient(baseUrl, from('203.0.113.6'))));
      expect(clients[2].response!.statusCode).toBe(200);
    } finally {
      for (const client of clients) client.close();
      await app.close();
    }
  });

  it('ends a stream after CHANGES_STREAM_MAX_SECONDS, saying why, and answers a long-poll by then', async () => {
    const app = await createTestApp({ env: { CHANGES_STREAM_MAX_SECONDS: '1' } });
    let client: SseClient | undefined;
    try {
      const baseUrl = `http://127.0.0.1:${await listen(app)}`;
      const start = await endCursor(baseUrl);
      const began = Date.now();
      const stream = await opened(new SseClient(baseUrl, { 'last-event-id': start }));
      client = stream;
      expect(stream.response!.statusCode).toBe(200);
      await stream.waitFor(() => stream.ended, 30_000);
      expect(Date.now() - began).toBeGreaterThanOrEqual(1_000);
      expect(stream.messages.at(-1)!.comment).toMatch(/^stream-end max-duration: /);

      const polled = Date.now();
      const response = await raw(baseUrl, `?after=${start}&waitSeconds=30`);
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toMatchObject({ items: [], nextCursor: start });
      expect(Date.now() - polled).toBeGreaterThanOrEqual(1_000);
      expect(Date.now() - polled).toBeLessThan(15_000);
    } finally {
      client?.close();
      await app.close();
    }
  });
});
