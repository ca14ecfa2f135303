import type { Server, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Tracks the requests in flight on an HTTP server so that a shutdown can stop accepting connections and still
 * answer every request that already arrived, within a bound.
 */
export class HttpDrain {
  private readonly inFlight = new Set<ServerResponse>();
  private draining = false;
  private onIdle?: () => void;
  /** One listener for every response ('close' comes once per response), rather than a closure per request. */
  private readonly untrack: (this: ServerResponse) => void;

  constructor(private readonly server: Server) {
    server.on('request', (_, response: ServerResponse) => this.track(response));
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const drain = this;
    this.untrack = function () {
      drain.inFlight.delete(this);
      if (drain.draining) drain.server.closeIdleConnections();
      if (drain.inFlight.size === 0) drain.onIdle?.();
    };
  }

  get pending(): number {
    return this.inFlight.size;
  }

  /**
   * Stops accepting connections (idle keep-alive ones close at once), waits for the requests in flight, and after
   * `timeoutMs` cuts the connections still open. Resolves true when every request was answered in time.
   */
  async close(timeoutMs: number): Promise<boolean> {
    this.draining = true;
    // Clients must not send more requests over a connection that is about to close.
    for (const response of this.inFlight) closeAfter(response);
    this.server.close();
    this.server.closeIdleConnections();
    const idle = new Promise<boolean>((resolve) => {
      this.onIdle = () => resolve(true);
      if (this.inFlight.size === 0) resolve(true);
    });
    const timer = new AbortController();
    const drained = await Promise.race([idle, sleep(timeoutMs, false, { signal: timer.signal }).catch(() => false)]);
    timer.abort();
    if (!drained) this.server.closeAllConnections();
    return drained;
  }

  private track(response: ServerResponse): void {
    if (this.draining) closeAfter(response);
    this.inFlight.add(response);
    response.on('close', this.untrack);
  }
}

function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('Connection', 'close');
}
