import type { Request } from 'express';
import { sseEndComment, sseEvent, streamEnd, wantsEventStream } from './changes-stream.js';

const accepting = (accept?: string) => ({ headers: accept === undefined ? {} : { accept } }) as Request;

describe('the change feed as Server-Sent Events', () => {
  it('is what a client gets that accepts text/event-stream, alone or among other types', () => {
    expect(wantsEventStream(accepting('text/event-stream'))).toBe(true);
    expect(wantsEventStream(accepting('application/json, Text/Event-Stream;q=0.9'))).toBe(true);
    expect(wantsEventStream(accepting('application/json'))).toBe(false);
    expect(wantsEventStream(accepting('text/event-streams'))).toBe(false);
    expect(wantsEventStream(accepting())).toBe(false);
  });

  it('writes a change as one event: id the cursor, event its type, data the item on one line', () => {
    const item = {
      cursor: 'abc.def',
      eventId: 'e-1',
      eventType: 'UPDATED',
      occurredAt: '2026-11-22T20:37:14.123Z',
      ticketId: 42,
      ticket: { id: 42, description: 'two\nlines' },
      data: {},
    };
    expect(sseEvent(item)).toBe(`id: abc.def\nevent: UPDATED\ndata: ${JSON.stringify(item)}\n\n`);
    expect(sseEvent(item).split('\n')).toHaveLength(5);
  });

  it('ends when its token is no longer accepted, or at the longest a stream lives, whichever comes first', () => {
    expect(streamEnd(1_000, 3600)).toEqual({ at: 3_601_000, reason: 'max-duration' });
    expect(streamEnd(1_000, 3600, 61_000)).toEqual({ at: 61_000, reason: 'token-expired' });
    expect(streamEnd(1_000, 60, 3_601_000)).toEqual({ at: 61_000, reason: 'max-duration' });
  });

  it('says why it ends in a comment, which EventSource ignores', () => {
    expect(sseEndComment({ at: 0, reason: 'token-expired' })).toBe(
      ': stream-end token-expired: the token is no longer accepted; reconnect with a fresh token and Last-Event-ID\n\n',
    );
    expect(sseEndComment({ at: 0, reason: 'max-duration' })).toMatch(/^: stream-end max-duration: [^\n]+\n\n$/);
  });
});
