import express from 'express';
import { ServiceExpressAdapter } from './express-adapter.js';

// That its requests and responses have Express's prototypes is tested through HTTP (test/http/limits.e2e-spec.ts).
describe('ServiceExpressAdapter', () => {
  it.each([
    ['httpsOptions', { httpsOptions: {} }],
    ['forceCloseConnections', { forceCloseConnections: true }],
  ])('refuses %s, which only the server it replaces would carry', (_, options) => {
    expect(() => new ServiceExpressAdapter(express()).initHttpServer(options)).toThrow(/plain HTTP server/);
  });

  it('refuses prototypes that are not those of Node’s requests and responses', () => {
    const app = express();
    Object.assign(app, { request: {} });
    expect(() => new ServiceExpressAdapter(app).initHttpServer({})).toThrow("not a prototype of IncomingMessage's instances");
  });
});
