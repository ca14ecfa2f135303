import { once } from 'node:events';
import { Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { ChangePosition } from './change-cursor.js';
import type { ChangeNotifier } from './change-notifier.js';
import type { ChangesRead, ChangesService } from './changes.service.js';
import type { ChangeItemResponse } from './dto/change-item-response.dto.js';

/** Changes read per round of a stream. */
const STREAM_BATCH = 500;
const logger = new Logger('ChangesStream');

function aborted(signal: AbortSignal): Promise<unknown> {
  return signal.aborted ? Promise.resolve() : once(signal, 'abort');
}

/** Whether the client asked for Server-Sent Events rather than JSON. */
export function wantsEventStream(request: Request): boolean {
  return /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(request.headers.accept ?? '');
}

/** One change as an SSE event: `id` the cursor (Last-Event-ID resumes after it), `event` its type, `data` the item. */
export function sseEvent(item: ChangeItemResponse): string {
  return `id: ${item.cursor}\nevent: ${item.eventType}\ndata: ${JSON.stringify(item)}\n\n`;
}

/**
 * Serves the feed after `afterSeq` as Server-Sent Events until the client goes or the service shuts down (then the
 * stream ends cleanly; the client reconnects with Last-Event-ID). New changes are pushed as the notifier sees
 * them numbered; an idle stream sends a `: heartbeat` comment every `heartbeatMs`. A failed read ends the stream
 * too: the client's reconnect starts from its last event, so nothing is lost.
 */
export async function streamChanges(
  response: Response,
  service: ChangesService,
  notifier: ChangeNotifier,
  after: ChangePosition,
  heartbeatMs: number,
): Promise<void> {
  const gone = new AbortController();
  response.on('close', () => gone.abort());
  response.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    // Proxies such as nginx must pass each event on at once rather than buffer the response.
    'X-Accel-Buffering': 'no',
  });
  response.flushHeaders();
  let lastWriteAt = Date.now();
  const write = async (text: string) => {
    lastWriteAt = Date.now();
    if (gone.signal.aborted || notifier.stopping) return;
    if (!response.write(text)) await Promise.race([once(response, 'drain'), aborted(gone.signal), aborted(notifier.stopSignal)]);
  };
  try {
    let waited = false;
    while (!gone.signal.aborted && !notifier.stopping) {
      const read: ChangesRead = waited ? await service.readAfterWait(after, STREAM_BATCH) : await service.read(after, STREAM_BATCH);
      for (const item of read.items) await write(sseEvent(item));
      after = read.next;
      waited = read.endOfStream;
      if (!waited) continue;
      await notifier.wait(after.seq, Math.max(0, lastWriteAt + heartbeatMs - Date.now()), gone.signal);
      if (!gone.signal.aborted && Date.now() - lastWriteAt >= heartbeatMs) await write(': heartbeat\n\n');
    }
  } catch (error) {
    logger.warn(`Change stream ended by a failed read: ${(error as Error).message}`);
  }
  // A client that stopped reading would hold the shutdown until it read what is buffered: it is cut off instead.
  if (notifier.stopping && response.writableNeedDrain) response.destroy();
  else response.end();
}
