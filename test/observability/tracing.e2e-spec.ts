import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { EventConsumer } from '../support/event-consumer.js';
import { OtlpReceiver } from '../support/otlp-receiver.js';
import { ServiceProcess } from '../support/service-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const BUILD = join(ROOT, process.env.TEST_SERVICE_BUILD ?? 'dist');
const REGISTER = join(BUILD, 'observability', 'tracing.register.js');
const RECORDER = join(ROOT, 'test', 'support', 'module-recorder.mjs');
const SERVER = 2;
const PRODUCER = 4;

/** A caller's sampled W3C context with fresh ids. */
function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

const traceIdOf = (traceparent: unknown) => String(traceparent).split('-')[1];
const parentIdOf = (traceparent: unknown) => String(traceparent).split('-')[2];

async function createTicket(service: ServiceProcess, traceparent: string): Promise<number> {
  const response = await fetch(`${service.url}/api/tickets`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', traceparent },
    body: JSON.stringify(buildTicketRequest()),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: number }).id;
}

describe('tracing', () => {
  let receiver: OtlpReceiver;
  let consumer: EventConsumer;
  let proxy: TcpProxy;
  const services: ServiceProcess[] = [];

  /** Tracing on, sampling no new trace: every span below exists because the caller's context was sampled. */
  const traced = (env: Record<string, string> = {}) => ({
    MANAGEMENT_TRACING_ENABLED: 'true',
    MANAGEMENT_OTLP_TRACING_ENDPOINT: receiver.endpoint,
    MANAGEMENT_TRACING_SAMPLING_PROBABILITY: '0',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    RABBITMQ_URL: `amqp://guest:guest@127.0.0.1:${proxy.port}`,
    LOG_LEVEL: 'info',
    ...env,
  });

  async function start(env: Record<string, string>, nodeArgs: string[] = []): Promise<ServiceProcess> {
    const service = await ServiceProcess.start(env, 30_000, { nodeArgs });
    services.push(service);
    return service;
  }

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    consumer = await EventConsumer.start();
    proxy = await TcpProxy.start(5672);
  });

  // One service process at a time: replicas share the outbox, and any of them may publish another's event.
  afterEach(async () => {
    await Promise.all(services.splice(0).map((service) => service.stop()));
  });

  afterAll(async () => {
    await consumer.stop();
    await receiver.stop();
    await proxy.stop();
  });

  it("with the setting alone (node dist/main.js), continues the caller's trace through the request, its SQL, the outbox and the publish, and hands it to the consumer", async () => {
    const service = await start(traced());
    const caller = callerContext();
    const ticketId = await createTicket(service, caller.traceparent);

    await receiver.waitFor(() => receiver.spansOf(caller.traceId).some((span) => span.kind === PRODUCER));
    const spans = receiver.spansOf(caller.traceId);
    const server = spans.find((span) => span.kind === SERVER)!;
    expect(server).toMatchObject({ parentSpanId: caller.spanId, name: expect.stringContaining('POST') });
    // A create's two round trips, START TRANSACTION with the ticket's INSERT, then the other INSERTs with COMMIT, each
    // named after its first statement's own verb, also when sent with a server time limit (SET STATEMENT … FOR INSERT …).
    const statements = spans.filter((span) => span.scope.includes('mysql2')).map((span) => span.name);
    expect(statements).toEqual(expect.arrayContaining(['START', 'INSERT']));
    expect(statements).not.toContain('SET');
    const publish = spans.find((span) => span.kind === PRODUCER)!;
    expect(publish.name).toBe(`${process.env.RABBITMQ_EXCHANGE} publish`);
    expect([...receiver.contentTypes]).toEqual(['application/json']);

    await consumer.waitFor(() => consumer.forTicket(ticketId).length === 1);
    const [message] = consumer.forTicket(ticketId);
    expect(traceIdOf(message.properties.headers?.traceparent)).toBe(caller.traceId);
    // A consumer continuing from these headers becomes a child of the publish span.
    expect(parentIdOf(message.properties.headers?.traceparent)).toBe(publish.spanId);

    const requestLine = service.output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .find((line) => line.message === 'POST /api/tickets 201' && line.traceId === caller.traceId);
    expect(requestLine).toMatchObject({ traceId: caller.traceId, spanId: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });

  it('keeps the trace when the broker was down at write time and another process published the event later', async () => {
    const writer = await start(traced());
    const caller = callerContext();
    proxy.cut();
    let ticketId: number;
    try {
      ticketId = await createTicket(writer, caller.traceparent);
      const db = await mysql.createConnection({ host: '127.0.0.1', user: 'root', database: process.env.DB_DATABASE });
      const [rows] = await db.query('SELECT traceparent FROM change_log WHERE ticket_id = ?', [ticketId]);
      await db.end();
      expect(traceIdOf((rows as Array<{ traceparent: string }>)[0].traceparent)).toBe(caller.traceId);
      await writer.stop();
    } finally {
      proxy.restore();
    }

    // The command line of earlier versions (--import of the register file as well) still traces.
    await start(traced(), ['--import', REGISTER]);
    await consumer.waitFor(() => consumer.forTicket(ticketId).length === 1, 20_000);
    expect(traceIdOf(consumer.forTicket(ticketId)[0].properties.headers?.traceparent)).toBe(caller.traceId);
    await receiver.waitFor(() => receiver.spansOf(caller.traceId).some((span) => span.kind === PRODUCER));
  });

  it('starts no tracing with tracing off: no OpenTelemetry module loaded, nothing exported', async () => {
    const record = join(await mkdtemp(join(tmpdir(), 'modules-')), 'loaded.txt');
    const requestsBefore = receiver.requests;
    const service = await start(
      { ...traced({ MANAGEMENT_TRACING_ENABLED: 'false', MANAGEMENT_TRACING_SAMPLING_PROBABILITY: '1' }), MODULE_RECORD_FILE: record },
      ['--import', RECORDER],
    );
    const caller = callerContext();
    const ticketId = await createTicket(service, caller.traceparent);
    await consumer.waitFor(() => consumer.forTicket(ticketId).length === 1);
    await fetch(`${service.url}/actuator/health`);
    // A tracing process exports what it still holds as it shuts down, and waits for the receiver's answer before
    // it exits: once it has exited, anything it would have sent has arrived.
    await service.stop();

    expect(receiver.requests).toBe(requestsBefore);
    expect(consumer.forTicket(ticketId)[0].properties.headers?.traceparent).toBeUndefined();
    const loaded = await readFile(record, 'utf8');
    expect(loaded).toContain('tracing.register.js');
    expect(loaded).toMatch(/mysql2/);
    expect(loaded).not.toMatch(/@opentelemetry|import-in-the-middle|require-in-the-middle/);
    await rm(join(record, '..'), { recursive: true, force: true });
  });

  it("traces the image's own command (node dist/main.js) with the setting alone, and its HEALTHCHECK still just probes", async () => {
    const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
    const command = JSON.parse(/^CMD (.*)$/m.exec(dockerfile)![1]) as string[];
    expect(command).toEqual(['node', 'dist/main.js']);
    // A folder laid out as the image's /app: package.json, node_modules and the build as dist/.
    const app = await mkdtemp(join(tmpdir(), 'ticket-service-app-'));
    try {
      await copyFile(join(ROOT, 'package.json'), join(app, 'package.json'));
      await symlink(join(ROOT, 'node_modules'), join(app, 'node_modules'));
      await symlink(BUILD, join(app, 'dist'));
      expect(existsSync(join(app, 'dist', 'observability', 'tracing.register.js'))).toBe(true);
      const env = {
        ...traced(),
        NODE_ENV: 'production',
        MANAGEMENT_HEALTH_PROBES_ENABLED: 'true',
      };
      const service = await ServiceProcess.start(env, 30_000, { cwd: app });
      services.push(service);
      const caller = callerContext();
      await createTicket(service, caller.traceparent);
      await receiver.waitFor(() => receiver.spansOf(caller.traceId).some((span) => span.kind === SERVER));

      const healthcheck = JSON.parse(/HEALTHCHECK[\s\S]*?CMD (\[.*\])/.exec(dockerfile)![1]) as string[];
      const { port } = new URL(service.url);
      await promisify(execFile)(process.execPath, healthcheck.slice(1), { cwd: app, env: { ...process.env, ...env, SERVER_PORT: port } });
    } finally {
      await rm(app, { recursive: true, force: true });
    }
  });
});
