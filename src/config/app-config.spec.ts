import { parseConfig } from './app-config.js';
import { ConfigError } from './env-reader.js';

describe('parseConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    expect(parseConfig({})).toMatchObject({
      server: { port: 8080 },
      db: { host: '127.0.0.1', port: 3306, username: 'root', password: '', database: 'tickets' },
      rabbitmq: {
        urls: ['amqp://guest:guest@127.0.0.1:5672'],
        exchange: 'ticket.exchange',
        exchangeType: 'topic',
        queue: 'ticket.queue',
        routingKey: 'ticket.routing.key',
        queueType: 'classic',
        queueArguments: {},
      },
      outbox: { partitions: 8, pollIntervalMs: 500, leaseTtlMs: 10_000 },
      tickets: {
        workflow: 'open',
        unmergeWindowMs: 30 * 86_400_000,
        jobs: { retentionMs: 30 * 86_400_000, pollIntervalMs: 1_000, leaseTtlMs: 30_000 },
      },
      management: { probesEnabled: false, readinessInclude: ['readinessState', 'db'], exposure: ['health', 'info'] },
    });
  });

  it('reads PORT when SERVER_PORT is not set, and SERVER_PORT wins over PORT', () => {
    expect(parseConfig({ PORT: '9000' }).server.port).toBe(9000);
    expect(parseConfig({ PORT: '9000', SERVER_PORT: '9001' }).server.port).toBe(9001);
  });

  it('accepts either spelling of the probes switch', () => {
    expect(parseConfig({ MANAGEMENT_HEALTH_PROBES_ENABLED: 'true' }).management.probesEnabled).toBe(true);
    expect(parseConfig({ MANAGEMENT_ENDPOINT_HEALTH_PROBES_ENABLED: 'TRUE' }).management.probesEnabled).toBe(true);
  });

  it('defaults the health timeout to 3 s, the shutdown delay to none and the info app facts to unset', () => {
    const config = parseConfig({});
    expect([config.management.healthTimeoutMs, config.server.shutdownDelayMs, config.server.shutdownTimeoutMs]).toEqual([3_000, 0, 10_000]);
    expect(config.management.info).toEqual({ name: undefined, description: undefined, version: undefined });
    expect(parseConfig({ INFO_APP_NAME: 'helpdesk', MANAGEMENT_HEALTH_TIMEOUT_MS: '500' }).management).toMatchObject({
      healthTimeoutMs: 500,
      info: { name: 'helpdesk' },
    });
  });

  it('reads the strict ticket workflow', () => {
    expect(parseConfig({ TICKET_WORKFLOW: 'strict' }).tickets.workflow).toBe('strict');
  });

  it('splits comma-separated lists and drops empty items', () => {
    expect(parseConfig({ MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE: ' health, info,,metrics ' }).management.exposure).toEqual([
      'health',
      'info',
      'metrics',
    ]);
  });

  it.each([
    ['SERVER_PORT', 'eighty'],
    ['DB_PORT', '70000'],
    ['DB_PORT', '0'],
    ['MANAGEMENT_HEALTH_PROBES_ENABLED', 'yes'],
    ['RABBITMQ_EXCHANGE_TYPE', 'x-delayed'],
    ['RABBITMQ_URL', 'http://localhost'],
    ['DB_DATABASE', 'tickets; DROP DATABASE x'],
    ['RABBITMQ_QUEUE_TYPE', 'stream'],
    ['RABBITMQ_QUEUE_MAX_LENGTH', '-1'],
    ['SPRING_RABBITMQ_ADDRESSES', 'node1:5672,node2'],
    ['RABBITMQ_ADDRESSES', 'http://node1'],
    ['OUTBOX_PARTITIONS', '0'],
    ['OUTBOX_LEASE_TTL_MS', '100'],
    ['OUTBOX_LEASE_TTL_MS', '1000'],
    ['OUTBOX_POLL_INTERVAL_MS', '5'],
    ['TICKET_WORKFLOW', 'STRICT'],
  ])('stops with a message naming %s when it is %p', (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(`^${name} `));
  });

  it('holds each lease renewed by a worker to at least four of its poll intervals', () => {
    expect(() => parseConfig({ OUTBOX_POLL_INTERVAL_MS: '250', OUTBOX_LEASE_TTL_MS: '999' })).toThrow(
      'OUTBOX_LEASE_TTL_MS must be at least 4 × OUTBOX_POLL_INTERVAL_MS (1000), got 999',
    );
    expect(parseConfig({ OUTBOX_POLL_INTERVAL_MS: '250', OUTBOX_LEASE_TTL_MS: '1000' }).outbox.leaseTtlMs).toBe(1_000);
    expect(() => parseConfig({ CHANGES_SEQUENCE_INTERVAL_MS: '200', CHANGES_LEASE_TTL_MS: '600' })).toThrow(
      'CHANGES_LEASE_TTL_MS must be at least 4 × CHANGES_SEQUENCE_INTERVAL_MS (800), got 600',
    );
  });

  describe('broker addresses', () => {
    it('uses RABBITMQ_URL alone when no addresses are given', () => {
      expect(parseConfig({ RABBITMQ_URL: 'amqp://u:p@broker:5673/vh' }).rabbitmq.urls).toEqual(['amqp://u:p@broker:5673/vh']);
    });

    it("reads Spring's SPRING_RABBITMQ_ADDRESSES, taking credentials and virtual host from RABBITMQ_URL", () => {
      const { urls } = parseConfig({
        SPRING_RABBITMQ_ADDRESSES: 'node1:5672, node2:5673',
        RABBITMQ_URL: 'amqp://u:p%40ss@x:1/prod',
      }).rabbitmq;
      expect(urls).toEqual(['amqp://u:p%40ss@node1:5672/prod', 'amqp://u:p%40ss@node2:5673/prod']);
    });

    it('prefers the SPRING_RABBITMQ_USERNAME, _PASSWORD and _VIRTUAL_HOST settings, and accepts RABBITMQ_ADDRESSES', () => {
      const env = {
        RABBITMQ_ADDRESSES: 'n1:5672',
        SPRING_RABBITMQ_USERNAME: 'svc',
        SPRING_RABBITMQ_PASSWORD: 's3cret',
        SPRING_RABBITMQ_VIRTUAL_HOST: 'desk',
      };
      expect(parseConfig(env).rabbitmq.urls).toEqual(['amqp://svc:s3cret@n1:5672/desk']);
    });

    it('takes full AMQP URLs as they are, and SPRING_RABBITMQ_ADDRESSES wins over RABBITMQ_ADDRESSES', () => {
      const env = { SPRING_RABBITMQ_ADDRESSES: 'amqp://a:b@n1:5672,amqps://a:b@n2:5671', RABBITMQ_ADDRESSES: 'ignored:1' };
      expect(parseConfig(env).rabbitmq.urls).toEqual(['amqp://a:b@n1:5672', 'amqps://a:b@n2:5671']);
    });
  });

  it('declares queue arguments only for the settings given', () => {
    expect(parseConfig({ RABBITMQ_QUEUE_TYPE: 'quorum', RABBITMQ_QUEUE_MAX_LENGTH: '1000' }).rabbitmq).toMatchObject({
      queueType: 'quorum',
      queueArguments: { 'x-max-length': 1000 },
    });
    const all = { RABBITMQ_QUEUE_MESSAGE_TTL_MS: '60000', RABBITMQ_QUEUE_DEAD_LETTER_EXCHANGE: 'ticket.dlx' };
    expect(parseConfig(all).rabbitmq.queueArguments).toEqual({ 'x-message-ttl': 60_000, 'x-dead-letter-exchange': 'ticket.dlx' });
  });

  describe('metrics and tracing', () => {
    it('has tracing off, sampling one trace in ten to the local OTLP endpoint, no application label and no histogram by default', () => {
      expect(parseConfig({}).management).toMatchObject({
        metrics: { application: undefined, httpServerRequestsHistogram: false },
        tracing: { enabled: false, endpoint: 'http://localhost:4318/v1/traces', samplingProbability: 0.1 },
      });
    });

    it("reads Spring's variable names for the application tag, the histogram switch and tracing", () => {
      const env = {
        MANAGEMENT_METRICS_TAGS_APPLICATION: 'helpdesk',
        MANAGEMENT_METRICS_DISTRIBUTION_PERCENTILESHISTOGRAM_HTTP_SERVER_REQUESTS: 'true',
        MANAGEMENT_TRACING_ENABLED: 'true',
        MANAGEMENT_OTLP_TRACING_ENDPOINT: 'https://collector:4318/v1/traces',
        MANAGEMENT_TRACING_SAMPLING_PROBABILITY: '1.0',
      };
      expect(parseConfig(env).management).toMatchObject({
        metrics: { application: 'helpdesk', httpServerRequestsHistogram: true },
        tracing: { enabled: true, endpoint: 'https://collector:4318/v1/traces', samplingProbability: 1 },
      });
    });

    it('accepts 0 and 1 and fractions in between as the sampling probability', () => {
      for (const [raw, value] of [
        ['0', 0],
        ['1', 1],
        ['.25', 0.25],
        ['0.5', 0.5],
      ] as const) {
        expect(parseConfig({ MANAGEMENT_TRACING_SAMPLING_PROBABILITY: raw }).management.tracing.samplingProbability).toBe(value);
      }
    });

    it.each([
      ['MANAGEMENT_TRACING_ENABLED', 'on'],
      ['MANAGEMENT_TRACING_SAMPLING_PROBABILITY', '1.5'],
      ['MANAGEMENT_TRACING_SAMPLING_PROBABILITY', '-0.1'],
      ['MANAGEMENT_TRACING_SAMPLING_PROBABILITY', 'half'],
      ['MANAGEMENT_OTLP_TRACING_ENDPOINT', 'collector:4318'],
      ['MANAGEMENT_METRICS_DISTRIBUTION_PERCENTILESHISTOGRAM_HTTP_SERVER_REQUESTS', 'yes'],
    ])('stops with a message naming %s when it is %p', (name, value) => {
      expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(`^${name} `));
    });
  });
});
