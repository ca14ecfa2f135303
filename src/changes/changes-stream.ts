import { once } from 'node:events';
import { DESK, type Viewer } from '../common/context/viewer.js';
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

/** Why a stream or long-poll ends on its own, and when (ms since the epoch). */
export interface StreamEnd {
  at: number;
  /** `token-expired`: its token is no longer accepted (`exp` plus the clock skew); `max-duration`: CHANGES_STREAM_MAX_SECONDS. */
  reason: 'token-expired' | 'max-duration';
}

/** The end of a stream opened at `startedAt`: its token's, when that comes before the longest a stream lives. */
export function streamEnd(startedAt: number, maxSeconds: number, tokenAcceptedUntil?: number): StreamEnd {
  const longest = startedAt + maxSeconds * 1000;
  return tokenAcceptedUntil !== undefined && tokenAcceptedUntil <= longest
    ? { at: tokenAcceptedUntil, reason: 'token-expired' }
    : { at: longest, reason: 'max-duration' };
}

/** The comment that closes a stream at its end, saying why; the client reconnects with Last-Event-ID. */
export function sseEndComment(end: StreamEnd): string {
  const why =
    end.reason === 'token-expired'
      ? 'the token is no longer accepted; reconnect with a fresh token and Last-Event-ID'
      : 'the stream reached its longest duration; reconnect with Last-Event-ID';
  return `: stream-end ${end.reason}: ${why}\n\n`;
}

/** Aborts at `at` (never early, though a timer may fire a little before its time). */
function abortAt(at: number): { signal: AbortSignal; cancel: () => void } {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const left = at - Date.now();
    if (left <= 0) controller.abort();
    else timer = setTimeout(check, Math.min(left, 2 ** 31 - 1));
  };
  check();
  return { signal: controller.signal, cancel: () => clearTimeout(timer) };
}

/**
 * Serves the feed after `after` as Server-Sent Events until the client goes, the service shuts down or `end` comes
 * (its token expires, or it reached CHANGES_STREAM_MAX_SECONDS: a `: stream-end <reason>: …` comment says which).
 * Then the stream ends cleanly, and the client reconnects with Last-Event-ID (and, past its token, a fresh one). No
 * change is sent after `end`. New changes are pushed as the notifier sees them numbered; an idle stream sends a
 * `: heartbeat` comment every `heartbeatMs`. A failed read ends the stream too: the client's reconnect starts from
 * its last event, so nothing is lost.
 */
export async function streamChanges(
  response: Response,
  service: ChangesService,
  notifier: ChangeNotifier,
  after: ChangePosition,
  heartbeatMs: number,
  end: StreamEnd,
  viewer: Viewer = DESK,
): Promise<void> {
  const gone = new AbortController();
  response.on('close', () => gone.abort());
  const expiry = abortAt(end.at);
  const stop = AbortSignal.any([gone.signal, expiry.signal]);
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
    if (stop.aborted || notifier.stopping) return;
    if (!response.write(text)) await Promise.race([once(response, 'drain'), aborted(stop), aborted(notifier.stopSignal)]);
  };
  try {
    let waited = false;
    while (!stop.aborted && !notifier.stopping) {
      const read: ChangesRead = waited
        ? await service.readAfterWait(after, STREAM_BATCH, viewer)
        : await service.read(after, STREAM_BATCH, viewer);
      for (const item of read.items) await write(sseEvent(item));
      after = read.next;
      waited = read.endOfStream;
      if (!waited) continue;
      await notifier.wait(after.seq, Math.max(0, lastWriteAt + heartbeatMs - Date.now()), stop);
      if (Date.now() - lastWriteAt >= heartbeatMs) await write(': heartbeat\n\n');
    }
  } catch (error) {
    logger.warn(`Change stream ended by a failed read: ${(error as Error).message}`);
  }
  expiry.cancel();
  const ended = expiry.signal.aborted && !gone.signal.aborted && !notifier.stopping;
  if (ended && !response.writableNeedDrain) response.write(sseEndComment(end));
  // A client that stopped reading would hold the shutdown (or its stream past its end) until it read what is
  // buffered: it is cut off instead.
  if ((notifier.stopping || ended) && response.writableNeedDrain) response.destroy();
  else response.end();
}
