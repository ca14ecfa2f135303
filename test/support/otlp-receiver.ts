import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as OTLP/HTTP's JSON encoding carries it (ids as hex strings). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer */
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  scope: string;
}

/** An OTLP/HTTP trace receiver (POST /v1/traces, JSON encoding), as a collector would be; keeps every span. */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly contentTypes = new Set<string>();
  requests = 0;
  private server?: Server;

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    receiver.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        receiver.requests++;
        receiver.contentTypes.add(String(req.headers['content-type']));
        if (req.method === 'POST' && req.url === '/v1/traces') receiver.collect(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.server!.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v1/traces`;
  }

  spansOf(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async waitFor(predicate: () => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`spans not received within ${timeoutMs} ms (${this.spans.map((s) => s.name).join(', ')})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private collect(body: {
    resourceSpans?: Array<{ scopeSpans?: Array<{ scope?: { name?: string }; spans?: Array<Omit<ReceivedSpan, 'scope'>> }> }>;
  }): void {
    for (const resource of body.resourceSpans ?? []) {
      for (const scoped of resource.scopeSpans ?? []) {
        for (const span of scoped.spans ?? []) this.spans.push({ ...span, scope: scoped.scope?.name ?? '' });
      }
    }
  }
}
