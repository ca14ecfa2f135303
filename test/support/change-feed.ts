import { request as httpRequest, type IncomingMessage } from 'node:http';

type Json = Record<string, any>;

export interface FeedPage {
  items: Json[];
  nextCursor: string;
  endOfStream: boolean;
}

/** Reads one page of /api/v2/changes from `baseUrl` (a running service) with `query`. */
export async function readFeed(baseUrl: string, query: Record<string, string | number | undefined> = {}): Promise<FeedPage> {
  const params = new URLSearchParams(
    Object.entries(query).flatMap(([key, value]): Array<[string, string]> => (value === undefined ? [] : [[key, String(value)]])),
  );
  const response = await fetch(`${baseUrl}/api/v2/changes?${params}`, { signal: AbortSignal.timeout(60_000) });
  if (response.status !== 200) throw new Error(`GET /api/v2/changes answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as FeedPage;
}

/**
 * A consumer of the feed: follows nextCursor from `after` (from the oldest change kept when absent), collecting
 * every item, until `done` says it has all it waits for or `timeoutMs` passes.
 */
export class FeedWalker {
  readonly items: Json[] = [];

  constructor(
    private readonly baseUrl: string,
    public cursor?: string,
  ) {}

  /** Reads pages until the end of the stream is reached once. */
  async catchUp(limit = 1000): Promise<void> {
    for (;;) {
      const page = await readFeed(this.baseUrl, { after: this.cursor, limit });
      this.items.push(...page.items);
      this.cursor = page.nextCursor;
      if (page.endOfStream) return;
    }
  }

  /** Reads (long-polling at the end) until `done()`; fails after `timeoutMs`. */
  async until(done: () => boolean, timeoutMs = 60_000, limit = 1000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`Feed condition not met within ${timeoutMs} ms (${this.items.length} items read)`);
      const page = await readFeed(this.baseUrl, { after: this.cursor, limit, waitSeconds: 1 });
      this.items.push(...page.items);
      this.cursor = page.nextCursor;
    }
  }

  forTicket(ticketId: number): Json[] {
    return this.items.filter((item) => item.ticketId === ticketId);
  }

  has(eventIds: Iterable<string>): boolean {
    const seen = new Set(this.items.map((item) => item.eventId));
    for (const id of eventIds) if (!seen.has(id)) return false;
    return true;
  }
}

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  /** A comment line (without the colon), e.g. `heartbeat`. */
  comment?: string;
}

/** A Server-Sent Events client of /api/v2/changes, parsing what arrives into events and comments. */
export class SseClient {
  readonly messages: SseMessage[] = [];
  response?: IncomingMessage;
  ended = false;
  private buffer = '';
  private readonly request;

  constructor(baseUrl: string, headers: Record<string, string> = {}, query = '') {
    const url = new URL(`/api/v2/changes${query}`, baseUrl);
    this.request = httpRequest(url, { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
      this.response = response;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => this.parse(chunk));
      response.on('end', () => (this.ended = true));
      response.on('error', () => (this.ended = true));
    });
    this.request.on('error', () => (this.ended = true));
    this.request.end();
  }

  events(): SseMessage[] {
    return this.messages.filter((message) => message.comment === undefined);
  }

  async waitFor(predicate: () => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline)
        throw new Error(`SSE condition not met within ${timeoutMs} ms: ${JSON.stringify(this.messages).slice(0, 500)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  close(): void {
    this.request.destroy();
  }

  private parse(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const message: SseMessage = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) message.comment = line.slice(1).trim();
        else {
          const colon = line.indexOf(':');
          const field = line.slice(0, colon);
          const value = line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id' || field === 'event') message[field] = value;
          if (field === 'data') message.data = message.data === undefined ? value : `${message.data}\n${value}`;
        }
      }
      this.messages.push(message);
    }
  }
}
