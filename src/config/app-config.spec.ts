import { ConfigError, parseConfig } from './app-config.js';

describe('parseConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    expect(parseConfig({})).toMatchObject({
      server: { port: 8080 },
      db: { host: '127.0.0.1', port: 3306, username: 'root', password: '', database: 'tickets' },
      rabbitmq: {
        url: 'amqp://guest:guest@127.0.0.1:5672',
        exchange: 'ticket.exchange',
        exchangeType: 'topic',
        queue: 'ticket.queue',
        routingKey: 'ticket.routing.key',
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
  ])('stops with a message naming %s when it is %p', (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(`^${name} `));
  });
});
