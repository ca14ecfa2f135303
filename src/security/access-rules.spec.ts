import { isRequesterToken, requiredScopes } from './access-rules.js';

const READ = { anyOf: ['tickets.read', 'tickets.write'], name: 'tickets.read' };
const REQUESTER_READ = { anyOf: ['tickets.read', 'tickets.write', 'tickets.requester'], name: 'tickets.read' };
const WRITE = { anyOf: ['tickets.write'], name: 'tickets.write' };
const REQUESTER_WRITE = { anyOf: ['tickets.write', 'tickets.requester'], name: 'tickets.write' };

describe('requiredScopes', () => {
  it.each(['GET', 'HEAD', 'OPTIONS'])('lets %s of tickets pass with tickets.read, tickets.write or tickets.requester', (method) => {
    for (const path of ['/api/tickets', '/api/tickets/7', '/api/v2/tickets/7/comments/3', '/api/v2/tickets/7/attachments/2/content']) {
      expect(requiredScopes(method, path)).toEqual(REQUESTER_READ);
    }
  });

  it('lets requester tokens read the change feed (theirs: src/people/visibility.ts), and keeps them off every other read', () => {
    expect(requiredScopes('GET', '/api/v2/changes')).toEqual(REQUESTER_READ);
    for (const path of ['/api/v2/changesx', '/api/v2/ticketsx', '/api/v2/other', '/api/changes'])
      expect(requiredScopes('GET', path)).toEqual(READ);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'delete'])('needs tickets.write for %s, under v1 and v2 alike', (method) => {
    expect(requiredScopes(method, '/api/tickets/1')?.anyOf).toContain('tickets.write');
    expect(requiredScopes(method, '/api/v2/tickets/1/comments')?.anyOf).toContain('tickets.write');
  });

  it('lets a requester token create tickets, comments and attachments and PATCH a ticket, nothing else', () => {
    for (const path of ['/api/tickets', '/api/v2/tickets/', '/api/tickets/4/comments', '/api/v2/tickets/4/attachments']) {
      expect(requiredScopes('POST', path)).toEqual(REQUESTER_WRITE);
    }
    expect(requiredScopes('PATCH', '/api/v2/tickets/4')).toEqual(REQUESTER_WRITE);
    for (const [method, path] of [
      ['PUT', '/api/tickets/4'],
      ['DELETE', '/api/v2/tickets/4'],
      ['DELETE', '/api/v2/tickets/4/attachments/2'],
      ['PATCH', '/api/v2/tickets/4/comments/1'],
      ['POST', '/api/v2/tickets/4/merge'],
    ]) {
      expect(requiredScopes(method, path)).toEqual(WRITE);
    }
  });

  it.each(['GET', 'POST', 'PATCH', 'DELETE'])('needs organizations.manage for %s under /api/v2/organizations', (method) => {
    expect(requiredScopes(method, '/api/v2/organizations/3')).toEqual({ anyOf: ['organizations.manage'], name: 'organizations.manage' });
  });

  it('tells a requester token by its scopes: tickets.requester without an agent scope', () => {
    expect(isRequesterToken(['tickets.requester'])).toBe(true);
    expect(isRequesterToken(['tickets.requester', 'openid'])).toBe(true);
    expect(isRequesterToken(['tickets.requester', 'tickets.read'])).toBe(false);
    expect(isRequesterToken(['tickets.requester', 'tickets.write'])).toBe(false);
    expect(isRequesterToken(['tickets.read'])).toBe(false);
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
