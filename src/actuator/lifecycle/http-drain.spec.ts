import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpDrain } from './http-drain.js';

interface Answer {
  status: number;
  connection?: string;
  body: string;
}

function get(port: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    request({ port, host: '127.0.0.1', path: '/' }, (response) => {
      let body = '';
      response
        .on('data', (chunk) => (body += chunk))
        .on('end', () => resolve({ status: response.statusCode!, connection: response.headers.connection, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('HttpDrain', () => {
  let server: Server;
  let drain: HttpDrain;
  let port: number;
  let release: () => void;
  let arrived: Promise<void>;

  beforeEach(async () => {
    let signalArrival: () => void;
    arrived = new Promise((resolve) => (signalArrival = resolve));
    const held = new Promise<void>((resolve) => (release = resolve));
    // Every request waits until the test releases it: a request "in flight".
    server = createServer((_, response) => {
      signalArrival();
      void held.then(() => response.end('done'));
    });
    drain = new HttpDrain(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(() => {
    release();
    server.closeAllConnections();
    server.close();
  });

  it('answers the request in flight, with Connection: close, and then resolves true', async () => {
    const answer = get(port);
    await arrived;
    expect(drain.pending).toBe(1);
    const closed = drain.close(5_000);
    release();
    await expect(answer).resolves.toEqual({ status: 200, connection: 'close', body: 'done' });
    await expect(closed).resolves.toBe(true);
  });

  it('refuses new connections once closing', async () => {
    const answer = get(port);
    await arrived;
    const closed = drain.close(5_000);
    await expect(get(port)).rejects.toThrow(/ECONNREFUSED/);
    release();
    await answer;
    await closed;
  });

  it('resolves true at once when nothing is in flight', async () => {
    await expect(drain.close(5_000)).resolves.toBe(true);
  });

  it('cuts a request still running after the timeout and resolves false', async () => {
    const answer = get(port);
    await arrived;
    await expect(drain.close(50)).resolves.toBe(false);
    await expect(answer).rejects.toThrow(/socket hang up|ECONNRESET/);
  });
});
