import { METHODS } from 'node:http';
import { allowedMethods } from './allowed-methods.js';

/** An Express router layer as Express 5 builds it: `app.all()` enables every method of node:http. */
function route(pattern: RegExp, methods: string[]) {
  return {
    match: (path: string) => pattern.test(path),
    route: { methods: Object.fromEntries(methods.map((m) => [m.toLowerCase(), true])) },
  };
}

describe('allowedMethods', () => {
  const ticket = /^\/api\/tickets\/[^/]+$/;
  const endpoints = [route(ticket, ['get']), route(ticket, ['put'])];

  it('lists the methods of the routes that match the path', () => {
    expect(allowedMethods({ router: { stack: endpoints } }, '/api/tickets/1').sort()).toEqual(['GET', 'PUT']);
  });

  it('is empty for an unknown path', () => {
    expect(allowedMethods({ router: { stack: endpoints } }, '/nope')).toEqual([]);
  });

  it('ignores app-wide middleware mounted for every method, such as the request logger', () => {
    const stack = [route(/.*/, [...METHODS]), ...endpoints];
    expect(allowedMethods({ router: { stack } }, '/nope')).toEqual([]);
    expect(allowedMethods({ router: { stack } }, '/api/tickets/1').sort()).toEqual(['GET', 'PUT']);
  });
});
