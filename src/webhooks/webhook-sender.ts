import { Agent as HttpAgent, type IncomingMessage, request as httpRequest, STATUS_CODES } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import {
  AddressRefused,
  checkUrlText,
  type ResolvedAddress,
  resolveChecked,
  type Resolver,
  systemResolver,
  type WebhookUrl,
} from './address-policy.js';
import { parseRetryAfter } from './retry-policy.js';

/** What one attempt came to. `error` is a line of our own: a receiver's body is never read into it. */
export interface SendResult {
  statusCode: number | null;
  retryAfterMs?: number;
  error: string | null;
  durationMs: number;
  /** No answer within the attempt's time: the receiver hangs (or is too slow), as far as the service can tell. */
  timedOut?: boolean;
}

/** The Retry-After of these statuses is honoured (retry-policy.ts). */
const RETRY_AFTER_STATUSES = new Set([429, 503]);
/** A response body is drained (for the connection's reuse) up to this much; a longer one ends the connection. */
const MAX_DRAINED_BYTES = 65_536;

/**
 * Sends one webhook request. The URL is checked again on every attempt (scheme, credentials, every address its
 * host resolves to), and the connection goes to exactly the address that was checked: `lookup` answers it
 * instead of a second DNS query, while the Host header and TLS SNI (and the certificate check) still name the
 * URL's host. Redirects are never followed (Node's http does not), and the response body is discarded unread.
 * The whole attempt, DNS included, is bounded by `timeoutMs`.
 */
export class WebhookSender {
  // Kept-alive connections were opened to checked addresses; a host whose DNS answer changes is checked anew
  // before each request, so a pooled connection is never used for a host that now resolves somewhere refused.
  private readonly agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: 64 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
  };

  constructor(
    private readonly timeoutMs: number,
    private readonly allowPrivateNetworks: boolean,
    private readonly resolver: Resolver = systemResolver,
  ) {}

  /** `timeoutMs` may be shorter than the sender's (the time left on the delivery's claim). */
  async send(url: string, headers: Record<string, string>, body: string, timeoutMs = this.timeoutMs): Promise<SendResult> {
    const started = performance.now();
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    timer.unref();
    let draining = false;
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const target = checkUrlText(url, this.allowPrivateNetworks);
      const address = await Promise.race([
        resolveChecked(target, this.allowPrivateNetworks, this.resolver, timeoutMs),
        aborted(abort.signal),
      ]);
      const response = await this.post(target, address, headers, body, abort.signal);
      // The deadline holds until the body has been drained too: a receiver trickling it would keep the socket forever.
      draining = true;
      response.once('close', () => clearTimeout(timer));
      const statusCode = response.statusCode ?? 0;
      const retryAfter = response.headers['retry-after'];
      const ok = statusCode >= 200 && statusCode < 300;
      return {
        statusCode,
        ...(RETRY_AFTER_STATUSES.has(statusCode) && { retryAfterMs: parseRetryAfter(retryAfter) }),
        error: ok ? null : `HTTP ${statusCode} ${STATUS_CODES[statusCode] ?? ''}`.trim(),
        durationMs: elapsed(),
      };
    } catch (error) {
      const timedOut = abort.signal.aborted;
      return { statusCode: null, error: describeFailure(error, timedOut, timeoutMs), durationMs: elapsed(), ...(timedOut && { timedOut }) };
    } finally {
      if (!draining) clearTimeout(timer);
    }
  }

  /** Ends the kept-alive connections. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private post(
    { url, host, port }: WebhookUrl,
    checked: ResolvedAddress,
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal,
  ): Promise<IncomingMessage> {
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if (options.all) callback(null, [{ address: checked.address, family: checked.family }]);
      else callback(null, checked.address, checked.family);
    };
    const https = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      const request = (https ? httpsRequest : httpRequest)(url, {
        method: 'POST',
        // The port the URL names, or its scheme's default; never Node's fallback for a port it reads as none.
        port,
        agent: https ? this.agents.https : this.agents.http,
        headers: { ...headers, 'content-length': Buffer.byteLength(body), 'user-agent': 'ticket-service-webhooks' },
        lookup,
        signal,
        ...(https && isIP(host) === 0 && { servername: host }),
      });
      request.once('response', (response) => {
        // Drained, not read: the body is the receiver's business and never stored.
        let drained = 0;
        response
          .on('error', () => undefined)
          .on('data', (chunk: Buffer) => {
            drained += chunk.length;
            if (drained > MAX_DRAINED_BYTES) response.destroy();
          });
        resolve(response);
      });
      request.once('error', reject);
      request.end(body);
    });
  }
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
}

function describeFailure(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (error instanceof AddressRefused) return `refused: the URL ${error.message}`;
  if (timedOut) return `no response within ${timeoutMs} ms`;
  const code = (error as { code?: string }).code;
  return code ? `request failed: ${code}` : `request failed: ${(error as Error).message}`;
}
