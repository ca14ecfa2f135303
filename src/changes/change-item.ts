import { encodeChangeCursor } from './change-cursor.js';
import type { SequencedChange } from './change-feed.repository.js';
import type { ChangeItemResponse } from './dto/change-item-response.dto.js';

/** The feed's item of a change: the envelope of its event, the ticket (null for a tombstone), and the event itself. */
export function changeItem(change: SequencedChange): ChangeItemResponse {
  const data = JSON.parse(change.payload) as Record<string, unknown> &
    Pick<ChangeItemResponse, 'eventId' | 'eventType' | 'occurredAt' | 'ticketId'>;
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
