import { encodeChangeCursor } from './change-cursor.js';
import type { SequencedChange } from './change-feed.repository.js';
import type { ChangeItemResponse } from './dto/change-item-response.dto.js';
import { DESK, type Viewer } from '../common/context/viewer.js';
import { seenBy } from '../people/visibility.js';

/**
 * The feed's item of a change: the envelope of its event, the ticket (null for a tombstone), and the event itself;
 * its ticket as the viewer may see it (a requester's without the desk's parts, src/people/visibility.ts).
 */
export function changeItem(change: SequencedChange, viewer: Viewer = DESK): ChangeItemResponse {
  const event = JSON.parse(change.payload) as Record<string, unknown> &
    Pick<ChangeItemResponse, 'eventId' | 'eventType' | 'occurredAt' | 'ticketId'>;
  const data = event.ticket ? { ...event, ticket: seenBy(viewer, event.ticket as object) } : event;
  const ticket = data.eventType === 'DELETED' ? null : ((data.ticket as ChangeItemResponse['ticket'] | undefined) ?? null);
  return {
    cursor: encodeChangeCursor(change.seq, change.numberedAt),
    eventId: data.eventId,
    eventType: data.eventType,
    occurredAt: data.occurredAt,
    ticketId: data.ticketId,
    ticket,
    data,
  };
}
