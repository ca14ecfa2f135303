import { requiredScopes } from './access-rules.js';

describe('requiredScopes', () => {
  it.each(['GET', 'HEAD', 'OPTIONS'])('lets %s under /api pass with tickets.read or tickets.write', (method) => {
    expect(requiredScopes(method, '/api/tickets/7')).toEqual({ anyOf: ['tickets.read', 'tickets.write'], name: 'tickets.read' });
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'delete'])('needs tickets.write for %s, under v1 and v2 alike', (method) => {
    expect(requiredScopes(method, '/api/tickets')).toEqual({ anyOf: ['tickets.write'], name: 'tickets.write' });
    expect(requiredScopes(method, '/api/v2/tickets/1/comments')).toEqual({ anyOf: ['tickets.write'], name: 'tickets.write' });
  });

  it.each(['GET', 'POST', 'PATCH', 'DELETE'])(
    'needs webhooks.manage for %s under /api/v2/webhooks, which the ticket scopes do not grant',
    (method) => {
      for (const path of ['/api/v2/webhooks', '/api/v2/webhooks/3/deliveries', '/API/V2/Webhooks/3/rotate-secret']) {
        expect(requiredScopes(method, path)).toEqual({ anyOf: ['webhooks.manage'], name: 'webhooks.manage' });
      }
      expect(requiredScopes(method, '/api/v2/webhooksx')?.name).not.toBe('webhooks.manage');
    },
  );

  it.each([
    '/actuator',
    '/actuator/health',
    '/actuator/health/liveness',
    '/v3/api-docs',
    '/v3/api-docs.yaml',
    '/v3/api-docs/v2',
    '/swagger-ui/',
    '/swagger-ui.html',
    '/ACTUATOR/health',
  ])('needs no token for %s', (path) => {
    expect(requiredScopes('GET', path)).toBeUndefined();
  });

  it.each(['/', '/nowhere', '/API/tickets', '/actuatorx', '/v3/api-docsx'])('needs a token for %s (deny by default)', (path) => {
    expect(requiredScopes('GET', path)).toBeDefined();
  });
});
