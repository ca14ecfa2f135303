import type { ChangeContext } from '../../outbox/outbox.writer.js';

/** Why a mail goes out: the ticket was opened, has a new public comment, was resolved or closed, or was merged into another. */
export type NotificationKind = 'created' | 'commented' | 'resolved' | 'closed' | 'merged';

/** A change of the log as the notifier reads it: its event's JSON and its context. */
export interface LoggedChange {
  eventType: string;
  /** The event, parsed. */
  event: {
    ticketId?: number;
    ticket?: { status?: string };
    comment?: { visibility?: string; author?: string | null };
    merge?: { targetId: number };
  };
  context: ChangeContext;
}

/** The people of a ticket when its change is read: its requester and its participants, canonical. */
export interface TicketPeople {
  requester: string;
  participants: readonly string[];
}

/**
 * What a change is mailed as, if it is: the ticket's opening (an acknowledgement, with the ticket's number), a new
 * public comment, a move to RESOLVED or CLOSED, or its merge into another ticket (a source's MERGED; a merge's own
 * close is no move the requester is told of as a close). Internal comments and every other change are never mailed.
 */
export function notificationKind(change: LoggedChange): NotificationKind | null {
  switch (change.eventType) {
    case 'CREATED':
      return 'created';
    case 'COMMENT_ADDED':
      return change.event.comment?.visibility === 'PUBLIC' ? 'commented' : null;
    case 'UPDATED': {
      const status = change.event.ticket?.status;
      if (change.context.statusFrom === undefined || change.context.statusFrom === status) return null;
      return status === 'RESOLVED' ? 'resolved' : status === 'CLOSED' ? 'closed' : null;
    }
    case 'MERGED':
      return change.event.merge && change.event.ticketId !== change.event.merge.targetId ? 'merged' : null;
    default:
      return null;
  }
}

/**
 * Who gets the mail of a change (decision 39): the ticket's requester and its participants, each once, never one of
 * the desk's own addresses (`isDesk`), and never the person who caused the change (the sender of the mail, the
 * requester token, the comment's author), who knows already. The acknowledgement of a new ticket is the exception,
 * because it tells its requester the ticket's number: to the requester alone when they opened it themselves, to the
 * requester and the participants when the desk did.
 */
export function recipientsOf(
  kind: NotificationKind,
  change: LoggedChange,
  people: TicketPeople,
  isDesk: (address: string) => boolean,
): string[] {
  const causes = new Set<string>();
  if (change.context.causedBy) causes.add(change.context.causedBy);
  const author = change.event.comment?.author?.trim().toLowerCase();
  if (kind === 'commented' && author) causes.add(author);
  const everyone = [...new Set([people.requester, ...people.participants])];
  // A ticket someone opened themselves (their mail, their requester token) is acknowledged to its requester alone:
  // a forged sender would otherwise have the desk mail its words to every address it put in Cc.
  if (kind === 'created' && change.context.causedBy) return isDesk(people.requester) ? [] : [people.requester];
  return everyone.filter((address) => !isDesk(address) && (kind === 'created' || !causes.has(address)));
}
