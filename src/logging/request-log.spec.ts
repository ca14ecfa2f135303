import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';
import { parseConfig } from '../config/app-config.js';
import { loggerOptions } from './logger-options.js';
import { requestLog } from './request-log.js';
import { recordResponseError } from '../common/http/response-error.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The logger of the server started last, as the application would log through it. */
let appLogger: Logger;

/** A real HTTP server behind the production request log, writing its log lines into `lines`. */
async function loggedServer(handler: Handler): Promise<{ url: string; lines: Array<Record<string, any>>; server: Server }> {
  const lines: Array<Record<string, any>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  appLogger = pino(loggerOptions({ level: 'info', format: 'json' }), sink);
  const log = requestLog(appLogger, sink);
  const server = createServer((req, res) => log(req, res, () => handler(req, res)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines, server };
}

function respond(status: number): Handler {
  return (_req, res) => {
    res.statusCode = status;
    res.end('{}');
  };
}

async function waitForLines(lines: unknown[], count: number): Promise<void> {
  for (let i = 0; i < 100 && lines.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('request logging', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function start(handler: Handler) {
    const logged = await loggedServer(handler);
    servers.push(logged.server);
    return logged;
  }

  it('writes one JSON line per request with time, level, message, requestId, method, path, status and duration', async () => {
    const { url, lines } = await start(respond(201));
    await fetch(`${url}/api/tickets?requesterEmail=jane@example.com`, { method: 'POST' });
    await waitForLines(lines, 1);

    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(Object.keys(line).sort()).toEqual(['durationMs', 'level', 'message', 'method', 'path', 'requestId', 'status', 'time']);
    expect(line).toMatchObject({ level: 'info', method: 'POST', path: '/api/tickets', status: 201, message: 'POST /api/tickets 201' });
    expect(new Date(line.time).toISOString()).toBe(line.time);
    expect(line.durationMs).toEqual(expect.any(Number));
  });

  it('keeps the query string, where filters hold personal data, out of the log', async () => {
    const { url, lines } = await start(respond(200));
    await fetch(`${url}/api/tickets?requesterEmail=jane@example.com`);
    await waitForLines(lines, 1);
    expect(JSON.stringify(lines)).not.toContain('jane@example.com');
  });

  it('takes the request id from X-Request-Id and echoes it on the response', async () => {
    const { url, lines } = await start(respond(200));
    const response = await fetch(`${url}/api/tickets`, { headers: { 'X-Request-Id': 'trace-42.a_b:c' } });
    await waitForLines(lines, 1);
    expect(response.headers.get('x-request-id')).toBe('trace-42.a_b:c');
    expect(lines[0].requestId).toBe('trace-42.a_b:c');
  });

  it('generates a UUID when X-Request-Id is absent, too long or not a plain token', async () => {
    const { url, lines } = await start(respond(200));
    for (const given of [undefined, 'x'.repeat(129), 'two words', 'a,b']) {
      const response = await fetch(`${url}/`, { headers: given === undefined ? {} : { 'X-Request-Id': given } });
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
    await waitForLines(lines, 4);
    expect(new Set(lines.map((line) => line.requestId)).size).toBe(4);
  });

  it('logs 2xx at info, 4xx at warn and 5xx at error', async () => {
    const { url, lines } = await start((req, res) => respond(Number(req.url!.slice(1)))(req, res));
    for (const status of [200, 404, 503]) await fetch(`${url}/${status}`);
    await waitForLines(lines, 3);
    expect(lines.map((line) => [line.status, line.level])).toEqual([
      [200, 'info'],
      [404, 'warn'],
      [503, 'error'],
    ]);
  });

  it('adds why to the line of a 4xx or 5xx: the error message and field errors recorded for it, never a stack', async () => {
    const { url, lines } = await start((req, res) => {
      const status = Number(req.url!.slice(1));
      if (status !== 404)
        recordResponseError(res, {
          message: `failed with ${status}`,
          fieldErrors: status === 400 ? ['title: Title is required'] : undefined,
        });
      respond(status)(req, res);
    });
    for (const status of [400, 404, 500, 200]) await fetch(`${url}/${status}`);
    await waitForLines(lines, 4);
    expect(lines.map(({ status, errorMessage, fieldErrors }) => ({ status, errorMessage, fieldErrors }))).toEqual([
      { status: 400, errorMessage: 'failed with 400', fieldErrors: ['title: Title is required'] },
      { status: 404, errorMessage: undefined, fieldErrors: undefined },
      { status: 500, errorMessage: 'failed with 500', fieldErrors: undefined },
      // Recorded, but a success has nothing to explain.
      { status: 200, errorMessage: undefined, fieldErrors: undefined },
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/stack|\bat /);
  });

  it("writes the control characters of an error message, which can quote a client's input, as \\u escapes", async () => {
    const { url, lines } = await start((_req, res) => {
      recordResponseError(res, { message: 'JSON parse error: "\u001b[31m\u007f\u0085\nx" is not valid JSON' });
      respond(400)(_req, res);
    });
    await fetch(`${url}/`);
    await waitForLines(lines, 1);
    expect(lines[0].errorMessage).toBe('JSON parse error: "\\u001b[31m\\u007f\\u0085\\u000ax" is not valid JSON');
  });

  it('writes the line of a request whose client went away before the answer, as aborted', async () => {
    let arrived!: () => void;
    const handled = new Promise<void>((resolve) => (arrived = resolve));
    const { url, lines } = await start(() => arrived());
    const client = new AbortController();
    const request = fetch(`${url}/api/tickets/7`, { signal: client.signal, headers: { 'X-Request-Id': 'gone-1' } });
    // Abort once the service is handling the request (it never answers), not after a guessed delay.
    await handled;
    client.abort();
    await request.catch(() => undefined);
    await waitForLines(lines, 1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ requestId: 'gone-1', method: 'GET', path: '/api/tickets/7', message: 'GET /api/tickets/7 aborted' });
  });

  it('adds the requestId to what the application logs while handling the request', async () => {
    const { url, lines } = await start((req, res) => {
      appLogger.info({ context: 'Tickets' }, 'looking up');
      respond(200)(req, res);
    });
    await fetch(`${url}/`, { headers: { 'X-Request-Id': 'req-7' } });
    await waitForLines(lines, 2);
    expect(lines[0]).toMatchObject({ message: 'looking up', context: 'Tickets', requestId: 'req-7' });
  });

  it('logs an error with its type, code and causes, but not the values a database statement was bound to', async () => {
    const { url, lines } = await start((req, res) => {
      const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED' });
      const error = Object.assign(new TypeError('Query failed', { cause }), { code: 'ER_X', parameters: ['jane@example.com'] });
      appLogger.error({ err: error, message: 'GET "/" failed' });
      respond(500)(req, res);
    });
    await fetch(`${url}/`);
    await waitForLines(lines, 2);

    const { err } = lines[0];
    expect(Object.keys(err).sort()).toEqual(['code', 'message', 'stack', 'type']);
    expect(err).toMatchObject({ type: 'TypeError', code: 'ER_X' });
    expect(err.message).toContain('connect ECONNREFUSED');
    expect(err.stack).toContain('caused by: Error: connect ECONNREFUSED');
    expect(JSON.stringify(lines)).not.toContain('jane@example.com');
  });
});

describe('logging settings', () => {
  it('defaults to JSON at level info', () => {
    expect(parseConfig({}).log).toEqual({ level: 'info', format: 'json' });
  });

  it('reads LOG_LEVEL and LOG_FORMAT', () => {
    expect(parseConfig({ LOG_LEVEL: 'debug', LOG_FORMAT: 'pretty' }).log).toEqual({ level: 'debug', format: 'pretty' });
  });

  it('rejects an unknown level or format, naming the variable', () => {
    expect(() => parseConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => parseConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });

  it('renders pretty output through pino-pretty and JSON with level names', () => {
    const pretty = loggerOptions({ level: 'info', format: 'pretty' });
    expect(pretty.transport).toMatchObject({ target: 'pino-pretty' });
    const json = loggerOptions({ level: 'info', format: 'json' });
    expect(json.transport).toBeUndefined();
    expect(json.formatters?.level?.('warn', 40)).toEqual({ level: 'warn' });
  });
});
