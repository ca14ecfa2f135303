import { createServer, type Server, type Socket, connect } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy a test controls, placed between the service and MariaDB or RabbitMQ: cut() drops every
 * connection and refuses new ones, stall() silently swallows all traffic (a network partition: no error,
 * no answer), restore() lets traffic through again, delayMs slows each chunk down, holdReplies() keeps what the
 * target sends back until releaseReplies(). `sentByClients` counts the bytes clients sent towards the target.
 */
export class TcpProxy {
  delayMs = 0;
  sentByClients = 0;
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private open = true;
  private stalled = false;
  private held?: Array<{ to: Socket; chunk: Buffer }>;
  private readonly watches = new Set<{ text: string; seen: () => void }>();
  private readonly counters = new Set<{ text: string; seen: () => void }>();

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

  /** From now on, what the target sends is kept back (requests still go through) until releaseReplies(). */
  holdReplies(): void {
    this.held ??= [];
  }

  /** Forwards what was kept back, in the order it came, and lets replies through again. */
  releaseReplies(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const { to, chunk } of held) if (to.writable) to.write(chunk);
  }

  /** Counts, from now on, the chunks clients send towards the target that hold `text`: how many so far. */
  countClientSends(text: string): () => number {
    let count = 0;
    this.counters.add({ text, seen: () => count++ });
    return () => count;
  }

  /** Resolves once a client of the proxy sends `text` (a statement's SQL, say) towards the target. */
  untilClientSends(text: string): Promise<void> {
    return new Promise((seen) => this.watches.add({ text, seen }));
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
      from.on('data', (chunk: Buffer) => {
        if (this.stalled) return;
        if (from === client) {
          this.sentByClients += chunk.length;
          for (const counter of this.counters) if (chunk.includes(counter.text)) counter.seen();
          for (const watch of this.watches) {
            if (chunk.includes(watch.text)) {
              this.watches.delete(watch);
              watch.seen();
            }
          }
        }
        if (this.held && from === upstream) {
          this.held.push({ to, chunk });
          return;
        }
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
