import { Agent, type IncomingHttpHeaders, type OutgoingHttpHeaders, request } from 'node:http';
import { connect } from 'node:net';
import type { INestApplication } from '@nestjs/common';

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HttpRequest {
  method: string;
  /** Sent exactly as given (percent-escapes, odd characters), unlike supertest, which normalises it. */
  path: string;
  /** An array value sends the header once per element. */
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer;
}

/** Starts the app on a free port of its own and returns that port. */
export async function listen(app: INestApplication): Promise<number> {
  await app.listen(0, '127.0.0.1');
  return (app.getHttpServer().address() as { port: number }).port;
}

/** A plain node:http client over keep-alive connections, for requests supertest cannot express. */
export class HttpClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 16 });

  constructor(private readonly port: number) {}

  send({ method, path, headers = {}, body }: HttpRequest): Promise<HttpResponse> {
    // node:http frames a body of GET, HEAD or DELETE with no length at all; say it, so every request is well-formed.
    const framed = body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) };
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: this.port, method, path, headers: framed, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface RawExchange {
  /** Everything the server sent before it closed the connection. */
  received: string;
  /** Milliseconds from the first byte sent until the server closed the connection. */
  closedAfterMs: number;
}

/**
 * Writes `chunks` on a fresh TCP connection, `pauseMs` apart, and collects what the server sends until it
 * closes the connection (or `giveUpMs` passes, which rejects): for slow clients and malformed requests.
 */
export function rawExchange(port: number, chunks: Array<string | Buffer>, pauseMs = 0, giveUpMs = 10_000): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    const timers: NodeJS.Timeout[] = [];
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`Server kept the connection open for ${giveUpMs} ms; received: ${received}`));
    }, giveUpMs);
    socket.on('connect', () =>
      chunks.forEach((chunk, i) => timers.push(setTimeout(() => socket.writable && socket.write(chunk), i * pauseMs))),
    );
    socket.on('data', (data) => (received += data.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(giveUp);
      timers.forEach(clearTimeout);
      resolve({ received, closedAfterMs: Date.now() - started });
    });
  });
}

/** Splits a raw HTTP/1.1 response into its status, lower-cased headers and body. */
export function parseRawResponse(raw: string): HttpResponse {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const [statusLine, ...headerLines] = head.split('\r\n');
  const headers: IncomingHttpHeaders = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}
