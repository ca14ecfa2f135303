/** What the threading rules learnt of a mail, each from its own lookup. */
export interface ThreadClues {
  /** The ticket that a Message-ID in In-Reply-To or References was recorded for (sent or received). */
  referenced?: number;
  /** The ticket a validly signed reply address in To, Cc or Delivered-To names. */
  replyAddress?: number;
  /** The ticket of the subject's `[#<id>]` tag, and whether the sender is its requester or one of its participants. */
  subjectTag?: { ticketId: number; senderBelongs: boolean };
}

export type ThreadedBy = 'references' | 'reply-address' | 'subject';

/**
 * The ticket a mail answers, by the first rule that names one (decision 39): the mail's references, then a signed
 * reply address, then the subject's tag, but only from the ticket's own people (a tag is easy to type, so from
 * anyone else it would be a way to write into any ticket); null: a new ticket.
 */
export function threadOf(clues: ThreadClues): { ticketId: number; by: ThreadedBy } | null {
  if (clues.referenced !== undefined) return { ticketId: clues.referenced, by: 'references' };
  if (clues.replyAddress !== undefined) return { ticketId: clues.replyAddress, by: 'reply-address' };
  if (clues.subjectTag?.senderBelongs) return { ticketId: clues.subjectTag.ticketId, by: 'subject' };
  return null;
}
