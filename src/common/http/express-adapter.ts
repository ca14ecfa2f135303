import http from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';

/**
 * Express as Nest runs it, with each request and response made with Express's own prototypes (`app.request`,
 * `app.response`) from the start. Express gives them these prototypes as it handles them (`Object.setPrototypeOf`
 * in `app.handle`), and V8 then makes a new hidden class for each property set on them afterwards, anew for every
 * request: at a fixed 780 requests a second, 12–16 KB a request that the young generation's collections kept past
 * two of them, 13 MB/s promoted to the old generation and found dead there by a Mark-Compact every 5 s, each holding
 * the event loop for 7–13 ms. Made so, the prototype is already the one Express sets, and the change is none
 * (docs/performance.md, "Latency at a fixed load").
 */
export class ServiceExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    // HTTPS and the tracking of open connections are set up on the server Nest makes, which this one replaces.
    if (options.httpsOptions || options.forceCloseConnections)
      throw new Error('ServiceExpressAdapter makes a plain HTTP server: httpsOptions and forceCloseConnections are not carried over');
    super.initHttpServer(options);
    const app = this.getInstance<Express>();
    this.setHttpServer(
      http.createServer(
        {
          IncomingMessage: madeWith(http.IncomingMessage, app.request),
          ServerResponse: madeWith(http.ServerResponse, app.response),
        },
        app,
      ),
    );
  }
}

/** A class whose instances are `base`'s, with `prototype` (which inherits from `base.prototype`) as their prototype. */
function madeWith<T extends typeof http.IncomingMessage | typeof http.ServerResponse>(base: T, prototype: object): T {
  if (!Object.prototype.isPrototypeOf.call(base.prototype, prototype)) throw new Error(`not a prototype of ${base.name}'s instances`);
  function Made(...args: unknown[]): object {
    return Reflect.construct(base, args, Made);
  }
  Made.prototype = prototype;
  return Made as unknown as T;
}
