import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got, with whether each of its secrets verified it (as a receiver using `standardwebhooks` would). */
export interface ReceivedWebhook {
  /** The request's path (and query), as the endpoint's URL named it. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, any>;
  /** Per secret given to the receiver, in order: did `Webhook.verify` accept the request? */
  verified: boolean[];
  /** The status the receiver answered. */
  status: number;
  receivedAt: number;
}

/** The answer to a request: a status and headers; the default is 204. */
export type Responder = (request: { headers: IncomingHttpHeaders; body: string; index: number }) => {
  status: number;
  headers?: Record<string, string>;
};

/** A real node:http webhook receiver on 127.0.0.1 that records every request and verifies it with `standardwebhooks`. */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  secrets: string[] = [];
  respond: Responder = () => ({ status: 204 });
  /** How long each answer takes (the request is recorded when it arrives). */
  delayMs = 0;
  /** While set, answers wait until it settles (a receiver that hangs until the test lets it go). */
  holdUntil?: Promise<unknown>;

  private constructor(private readonly server: Server) {}

  static async start(respond?: Responder): Promise<WebhookReceiver> {
    const receiver: WebhookReceiver = new WebhookReceiver(
      createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const answer = receiver.respond({ headers: request.headers, body, index: receiver.received.length });
          receiver.received.push({
            path: request.url ?? '',
            headers: request.headers,
            body,
            json: safeJson(body),
            verified: receiver.secrets.map((secret) => verifies(secret, body, request.headers)),
            status: answer.status,
            receivedAt: Date.now(),
          });
          const answerNow = () => response.writeHead(answer.status, answer.headers).end(answer.status >= 300 ? 'the receiver says no' : '');
          if (receiver.holdUntil) void receiver.holdUntil.then(answerNow);
          else if (receiver.delayMs > 0) setTimeout(answerNow, receiver.delayMs);
          else answerNow();
        });
      }),
    );
    if (respond) receiver.respond = respond;
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hook', host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  /** The requests that were answered 2xx. */
  accepted(): ReceivedWebhook[] {
    return this.received.filter((request) => request.status >= 200 && request.status < 300);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

function verifies(secret: string, body: string, headers: IncomingHttpHeaders): boolean {
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

function safeJson(body: string): Record<string, any> {
  try {
    return JSON.parse(body);
  } catch {
    return {};
  }
}
