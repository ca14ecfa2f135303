import { createServer, type Server, type Socket, connect } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy a test controls, placed between the service and MariaDB or RabbitMQ: cut() drops every
 * connection and refuses new ones, restore() lets them through again, delayMs slows each chunk down.
 */
export class TcpProxy {
  delayMs = 0;
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private open = true;

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

  restore(): void {
    this.open = true;
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
