import { createServer, type Server, type Socket, connect } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy a test controls, placed between the service and MariaDB or RabbitMQ: cut() drops every
 * connection and refuses new ones, stall() silently swallows all traffic (a network partition: no error,
 * no answer), restore() lets traffic through again, delayMs slows each chunk down.
 */
export class TcpProxy {
  delayMs = 0;
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private open = true;
  private stalled = false;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort);
    proxy.server = createServer((client) => proxy.accept(client));
    await new Promise<void>((resolve) => proxy.server!.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  /** Drops all live connections and refuses new ones until restore(). */
  cut(): void {
    this.open = false;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  /** Keeps every connection open but forwards nothing, in either direction, until restore(); what is sent meanwhile is lost. */
  stall(): void {
    this.stalled = true;
  }

  restore(): void {
    this.open = true;
    this.stalled = false;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (!this.open) {
      client.destroy();
      return;
    }
    const upstream = connect(this.targetPort, this.targetHost);
    this.sockets.add(client).add(upstream);
    const pipe = (from: Socket, to: Socket) =>
      from.on('data', (chunk) => {
        if (this.stalled) return;
        if (this.delayMs > 0) setTimeout(() => to.write(chunk), this.delayMs);
        else to.write(chunk);
      });
    pipe(client, upstream);
    pipe(upstream, client);
    for (const socket of [client, upstream]) {
      socket.on('error', () => undefined);
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(socket);
      });
    }
  }
}
