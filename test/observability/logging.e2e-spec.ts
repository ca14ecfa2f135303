import { createServer } from 'node:net';
import { createConnection } from 'mysql2/promise';
import { parseConfig } from '../../src/config/app-config.js';
import { typeOrmOptions } from '../../src/database/typeorm-options.js';
import { parseRawResponse, rawExchange } from '../support/http-client.js';
import { expectProblem } from '../support/problem-json.js';
import { ServiceProcess } from '../support/service-process.js';
import { expectSpringError } from '../support/spring-error.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

type LogLine = Record<string, any>;

/** Every line the process wrote so far, parsed; fails the test on a line that is not JSON. */
function jsonLines(service: ServiceProcess): LogLine[] {
  return service.output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as LogLine;
      } catch {
        throw new Error(`Not a JSON log line: ${line}`);
      }
    });
}

async function linesWhere(service: ServiceProcess, matches: (line: LogLine) => boolean, count: number): Promise<LogLine[]> {
  for (let i = 0; i < 200; i++) {
    const lines = jsonLines(service).filter(matches);
    if (lines.length >= count) return lines;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Fewer than ${count} log lines matching ${matches}:\n${service.output}`);
}

function linesFor(service: ServiceProcess, requestId: string, count: number): Promise<LogLine[]> {
  return linesWhere(service, (line) => line.requestId === requestId, count);
}

describe('Logs in production format (LOG_FORMAT=json)', () => {
  let proxy: TcpProxy;
  let service: ServiceProcess;

  beforeAll(async () => {
    proxy = await TcpProxy.start(Number(process.env.DB_PORT ?? 3306));
    service = await ServiceProcess.start({
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      DB_PORT: String(proxy.port),
      DB_QUERY_TIMEOUT_MS: '1000',
    });
  });

  afterAll(async () => {
    await service.stop();
    await proxy.stop();
  });

  it('writes start-up and application logs as one JSON object per line, with time, level and message', async () => {
    const lines = jsonLines(service);
    const started = lines.find((line) => /listening on port/.test(line.message));
    expect(started).toMatchObject({ level: 'info', context: 'Bootstrap' });
    expect(new Date(started!.time).toISOString()).toBe(started!.time);
  });

  it('logs each request with the X-Request-Id it came with, and echoes that id', async () => {
    const response = await fetch(`${service.url}/api/tickets`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'e2e-create-1' },
      body: JSON.stringify(buildTicketRequest()),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-request-id')).toBe('e2e-create-1');

    const [line] = await linesFor(service, 'e2e-create-1', 1);
    expect(line).toMatchObject({ level: 'info', method: 'POST', path: '/api/tickets', status: 201, message: 'POST /api/tickets 201' });
    expect(line.durationMs).toEqual(expect.any(Number));
  });

  it('logs and tags a request the body parser rejects, before it reaches a controller', async () => {
    const response = await fetch(`${service.url}/api/tickets`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'e2e-malformed' },
      body: '{"title":',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-request-id')).toBe('e2e-malformed');
    const [line] = await linesFor(service, 'e2e-malformed', 1);
    expect(line).toMatchObject({ level: 'warn', status: 400, path: '/api/tickets' });
  });

  it('writes U+2028 and U+2029 that a JSON parse error quotes as \\u escapes, so a reader splitting on Unicode line separators sees one line', async () => {
    const response = await fetch(`${service.url}/api/tickets`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'e2e-line-separators' },
      body: '{"title":x\u2028\u2029}',
    });
    expect(response.status).toBe(400);
    const [line] = await linesFor(service, 'e2e-line-separators', 1);
    expect(line.errorMessage).toContain('x\\u2028\\u2029}');
    expect(service.output.split(/[\n\u2028\u2029]/).filter((text) => text.includes('e2e-line-separators'))).toEqual([
      expect.stringMatching(/^\{.*\}$/),
    ]);
  });

  it.each([
    [
      'an invalid body',
      'e2e-why-invalid',
      { method: 'POST', body: JSON.stringify({ ...buildTicketRequest(), title: ' ', requesterEmail: 'not-an-email' }) },
      400,
      {
        errorMessage: "Validation failed for object='ticketRequest'. Error count: 2",
        fieldErrors: ['title: Title is required', 'requesterEmail: Invalid email format'],
      },
    ],
    [
      'malformed JSON',
      'e2e-why-malformed',
      { method: 'POST', body: '{"title":' },
      400,
      { errorMessage: expect.stringMatching(/^JSON parse error: /) },
    ],
    [
      'a body that is not JSON',
      'e2e-why-415',
      { method: 'POST', body: 'x', contentType: 'text/plain' },
      415,
      {
        errorMessage: 'Content-Type "text/plain" is not supported',
      },
    ],
    [
      'a missing ticket',
      'e2e-why-404',
      { method: 'GET', path: '/api/tickets/999999999' },
      404,
      { errorMessage: 'Ticket not found with id: 999999999' },
    ],
    [
      'an unknown path',
      'e2e-why-no-endpoint',
      { method: 'GET', path: '/api/nothing-here' },
      404,
      { errorMessage: 'No endpoint GET "/api/nothing-here".' },
    ],
  ])(
    'says on the request line why %s was refused, with the message the client got and no stack',
    async (_name, id, request, status, why) => {
      const {
        method,
        body,
        contentType = 'application/json',
        path = '/api/tickets',
      } = request as { method: string; body?: string; contentType?: string; path?: string };
      const response = await fetch(`${service.url}${path}`, { method, body, headers: { 'Content-Type': contentType, 'X-Request-Id': id } });
      expect(response.status).toBe(status);
      const answered = (await response.json()) as { message: string };
      const [line] = await linesFor(service, id, 1);
      expect(line).toMatchObject({ level: 'warn', status, ...why });
      expect(line.errorMessage).toBe(answered.message);
      expect(JSON.stringify(line)).not.toMatch(/stack|\bat /);
    },
  );

  it.each([
    [
      'without Host',
      'GET /api/tickets/e2e-no-host HTTP/1.1\r\nConnection: close\r\n\r\n',
      400,
      'An HTTP/1.1 request must have a Host header',
    ],
    [
      'with an unknown Expect',
      'GET /api/v2/e2e-expect HTTP/1.1\r\nHost: x\r\nExpect: x-y\r\nConnection: close\r\n\r\n',
      417,
      'Expectation "x-y" is not supported; only 100-continue is',
    ],
    ['Node cannot parse', 'GET /api/tickets/e2e-malformed HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400, 'Malformed HTTP request'],
    [
      'with headers over 16 KiB',
      `GET /api/v2/e2e-431 HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(17_000)}\r\n\r\n`,
      431,
      'Request header fields are larger than 16384 bytes',
    ],
  ])('answers and logs a request %s like any refused request', async (_name, raw, status, message) => {
    const path = raw.split(' ')[1];
    const { received } = await rawExchange(Number(new URL(service.url).port), [raw]);
    const response = parseRawResponse(received);
    expect(response.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'content-security-policy': expect.any(String) });
    const shape = path.startsWith('/api/v2/')
      ? expectProblem(response, status, path).detail
      : expectSpringError(response, status, path).message;
    expect(shape).toBe(message);
    const [line] = await linesWhere(service, (line) => line.path === path, 1);
    expect(line).toMatchObject({ level: 'warn', method: 'GET', status, errorMessage: message, message: `GET ${path} ${status}` });
  });

  it('says on the request line of a 5xx why it failed, while the stack stays on the failure line', async () => {
    proxy.cut();
    try {
      const response = await fetch(`${service.url}/api/tickets`, { headers: { 'X-Request-Id': 'e2e-why-db-down' } });
      expect(response.status).toBeGreaterThanOrEqual(500);
      const answered = (await response.json()) as { message: string };
      const lines = await linesFor(service, 'e2e-why-db-down', 2);
      const requestLine = lines.find((line) => line.status);
      expect(requestLine).toMatchObject({ level: 'error', status: response.status, errorMessage: answered.message });
      expect(JSON.stringify(requestLine)).not.toMatch(/stack|\bat /);
      expect(lines.find((line) => line.err)!.err.stack).toEqual(expect.any(String));

      // A health answer of 503 is no error body, but its line says which components are not UP.
      const health = await fetch(`${service.url}/actuator/health`, { headers: { 'X-Request-Id': 'e2e-why-health' } });
      expect(health.status).toBe(503);
      const [healthLine] = await linesFor(service, 'e2e-why-health', 1);
      expect(healthLine).toMatchObject({
        level: 'error',
        status: 503,
        errorMessage: expect.stringMatching(/^Health status is DOWN: (.+, )?db DOWN/),
      });
    } finally {
      proxy.restore();
    }
  });

  it('logs a failure with its cause and the request id, next to the request line', async () => {
    proxy.cut();
    try {
      const response = await fetch(`${service.url}/api/tickets`, { headers: { 'X-Request-Id': 'e2e-db-down' } });
      expect(response.status).toBeGreaterThanOrEqual(500);
      const lines = await linesFor(service, 'e2e-db-down', 2);
      const failure = lines.find((line) => line.err);
      expect(failure).toMatchObject({ level: 'error', context: 'Errors', message: 'GET "/api/tickets" failed' });
      expect(failure!.err).toEqual(
        expect.objectContaining({ type: expect.any(String), message: expect.any(String), stack: expect.any(String) }),
      );
      expect(lines.find((line) => line.status)).toMatchObject({ level: 'error', status: response.status });
    } finally {
      proxy.restore();
    }
  });
});

describe('Logs during start-up', () => {
  it('says in one line each which migrations ran on a new database, and that none were pending on the next start', async () => {
    const env = { LOG_FORMAT: 'json', LOG_LEVEL: 'info', DB_DATABASE: `${process.env.DB_DATABASE}_startup` };
    const migrationLines = (service: ServiceProcess) => jsonLines(service).filter((line) => /migration/i.test(line.message));
    const migrations = (typeOrmOptions(parseConfig({}).db).migrations as Array<{ name: string }>).map((migration) => migration.name);
    try {
      const first = await ServiceProcess.start(env);
      await first.stop();
      expect(migrationLines(first)).toEqual([
        expect.objectContaining({
          level: 'info',
          context: 'Database',
          message: `Migrations ran: ${migrations.join(', ')} (0 of ${migrations.length} were applied before)`,
        }),
      ]);
      const second = await ServiceProcess.start(env);
      await second.stop();
      expect(migrationLines(second)).toEqual([
        expect.objectContaining({
          level: 'info',
          context: 'Database',
          message: `No migrations pending: all ${migrations.length} are applied`,
        }),
      ]);
    } finally {
      const db = await createConnection({
        host: process.env.DB_HOST,
        port: Number(process.env.DB_PORT ?? 3306),
        user: process.env.DB_USERNAME ?? 'root',
        password: process.env.DB_PASSWORD ?? '',
      });
      await db.query(`DROP DATABASE IF EXISTS \`${env.DB_DATABASE}\``);
      await db.end();
    }
  });

  it('gives the addresses of the API, Swagger UI and health in one line once it listens, and each answers', async () => {
    const service = await ServiceProcess.start({ LOG_FORMAT: 'json', LOG_LEVEL: 'info' });
    try {
      const started = jsonLines(service).filter((line) => /listening on port/.test(line.message));
      expect(started).toHaveLength(1);
      expect(started[0]).toMatchObject({ level: 'info', context: 'Bootstrap' });
      const port = new URL(service.url).port;
      const base = `http://localhost:${port}`;
      expect(started[0].message).toBe(
        `Ticket service listening on port ${port}: API ${base}/api/tickets, Swagger UI ${base}/swagger-ui.html, health ${base}/actuator/health`,
      );
      const api = await fetch(`${base}/api/tickets`);
      expect([api.status, Array.isArray(await api.json())]).toEqual([200, true]);
      const swaggerUi = await fetch(`${base}/swagger-ui.html`);
      expect([swaggerUi.status, await swaggerUi.text()]).toEqual([200, expect.stringContaining('swagger-ui')]);
      const health = await fetch(`${base}/actuator/health`);
      expect(await health.json()).toEqual(expect.objectContaining({ status: expect.any(String), components: expect.any(Object) }));
    } finally {
      await service.stop();
    }
  });

  it('writes each retry for an unreachable database as it happens, as JSON, not once start-up is over', async () => {
    const service = await ServiceProcess.launch({ LOG_FORMAT: 'json', LOG_LEVEL: 'info', DB_PORT: '1' });
    try {
      // Start-up gives up only after ~20 s of retries; the first retry is logged within a few seconds.
      for (let i = 0; i < 200 && !service.output.includes('not ready'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      const retry = jsonLines(service).find((line) => /not ready/.test(line.message));
      expect(retry).toMatchObject({ level: 'warn', context: 'Database' });
    } finally {
      await service.stop();
    }
  });

  it('ends a start-up with a bad setting with exit code 1 and one JSON line naming the setting, no stack', async () => {
    const service = await ServiceProcess.launch({ LOG_FORMAT: 'json', LOG_LEVEL: 'info', SERVER_PORT: 'abc' });
    expect(await service.exited).toBe(1);
    const lines = service.output.split('\n').filter((line) => line.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 'error',
      context: 'Bootstrap',
      message: 'Start-up failed: SERVER_PORT must be a non-negative integer, got "abc"',
    });
  });

  it('ends a start-up that cannot listen with exit code 1 and a line saying why', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    try {
      const port = (taken.address() as { port: number }).port;
      const service = await ServiceProcess.launch({ LOG_FORMAT: 'json', LOG_LEVEL: 'info', SERVER_PORT: String(port) });
      expect(await service.exited).toBe(1);
      const failure = jsonLines(service).find((line) => line.context === 'Bootstrap' && line.level === 'error');
      expect(failure?.message).toMatch(/^Start-up failed: listen EADDRINUSE/);
    } finally {
      taken.close();
    }
  });
});

describe('Logs in development format (LOG_FORMAT=pretty)', () => {
  it('writes human-readable lines: time, level name and message, not JSON', async () => {
    const service = await ServiceProcess.start({ LOG_FORMAT: 'pretty', LOG_LEVEL: 'info' });
    try {
      await fetch(`${service.url}/api/tickets`, { headers: { 'X-Request-Id': 'e2e-pretty' } });
      for (let i = 0; i < 100 && !service.output.includes('e2e-pretty'); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    } finally {
      await service.stop();
    }
    const request = service.output.split('\n').find((line) => line.includes('e2e-pretty'));
    expect(request).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: GET \/api\/tickets 200 /);
    expect(service.output).toMatch(/INFO: Ticket service listening on port \d+/);
  });
});
