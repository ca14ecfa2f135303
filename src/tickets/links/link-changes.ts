import type { TransactionWrites } from '../../database/transaction.js';
import type { OutboxWriter } from '../../outbox/outbox.writer.js';
import { linkEvent, routingKeyOf } from '../events/ticket-event.js';
import { HistoryAction } from '../history-action.js';
import type { TicketHistoryRepository } from '../ticket-history.repository.js';
import { seenFrom, type StoredLink } from './links.js';

/**
 * A link added or removed, for one of its tickets: its LINKED or UNLINKED history entry and event, the link as that
 * ticket sees it, in the write's transaction (which holds that ticket's row lock, so they take their place in its order).
 */
export async function recordLinkChange(
  record: { history: TicketHistoryRepository; outbox: OutboxWriter; writes: TransactionWrites },
  link: StoredLink,
  ticketId: number,
  eventType: 'LINKED' | 'UNLINKED',
  now: Date,
  actor: string | null,
): Promise<void> {
  const view = seenFrom(link, ticketId);
  await record.history.record(
    record.writes,
    eventType === 'LINKED'
      ? { ticketId, occurredAt: now, actor, action: HistoryAction.LINKED, changes: { link: { from: null, to: view } } }
      : { ticketId, occurredAt: now, actor, action: HistoryAction.UNLINKED, changes: { link: { from: view, to: null } } },
  );
  await record.outbox.record(record.writes, linkEvent(eventType, ticketId, view, now), routingKeyOf(eventType));
}
