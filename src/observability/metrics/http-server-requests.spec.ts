import { methodOf, outcomeOf, springTemplate, uriOf } from './http-server-requests.js';

describe('http.server.requests labels', () => {
  it.each([
    [101, 'INFORMATIONAL'],
    [200, 'SUCCESS'],
    [204, 'SUCCESS'],
    [304, 'REDIRECTION'],
    [404, 'CLIENT_ERROR'],
    [499, 'CLIENT_ERROR'],
    [503, 'SERVER_ERROR'],
    [600, 'UNKNOWN'],
  ])('gives status %p the outcome %s', (status, outcome) => {
    expect(outcomeOf(status)).toBe(outcome);
  });

  it('keeps the standard methods and says UNKNOWN for any other', () => {
    expect([methodOf('GET'), methodOf('PATCH'), methodOf('PROPFIND'), methodOf(undefined)]).toEqual(['GET', 'PATCH', 'UNKNOWN', 'UNKNOWN']);
  });

  it('uses the route template when a route matched, whatever the status', () => {
    expect(uriOf('/api/tickets/{id}', 404)).toBe('/api/tickets/{id}');
  });

  it('says NOT_FOUND for an unmatched 404, REDIRECTION for an unmatched 3xx and UNKNOWN for anything else', () => {
    expect([uriOf(undefined, 404), uriOf(undefined, 302), uriOf(undefined, 405), uriOf(undefined, 200)]).toEqual([
      'NOT_FOUND',
      'REDIRECTION',
      'UNKNOWN',
      'UNKNOWN',
    ]);
  });

  it("writes Express' route parameters as Spring's template variables", () => {
    expect(springTemplate('/api/tickets/:id')).toBe('/api/tickets/{id}');
    expect(springTemplate('/api/tickets/:id/comments/:commentId')).toBe('/api/tickets/{id}/comments/{commentId}');
    expect(springTemplate('/api/tickets')).toBe('/api/tickets');
  });

  it("gives no template for a wildcard route such as Nest's catch-all for unmatched paths", () => {
    expect(springTemplate('{/{*splat}}')).toBeUndefined();
    expect(springTemplate('/files/*path')).toBeUndefined();
  });
});
