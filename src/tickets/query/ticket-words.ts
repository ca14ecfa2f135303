import type { EntityManager } from 'typeorm';
import { ticketWords } from './ticket-search.js';

/** What the search index is built from. */
export interface SearchableText {
  title: string;
  description: string;
}

interface Queryable {
  query: EntityManager['query'];
}

/**
 * Keeps `ticket_words` (the search index, migration CreateTicketWords) in step with a ticket, in the write's own
 * transaction: a ticket is searchable by exactly the words it has once its write commits, and a write that rolls
 * back leaves no words behind. The rows go with their ticket by foreign key (ON DELETE CASCADE).
 *
 * `before` is the ticket as it was (null for a new one): when neither title nor description changed, nothing is
 * written. Otherwise the old words are deleted and the new ones inserted in one statement. The collation makes
 * "Café" and "cafe" one key, so a duplicate is skipped rather than an error.
 */
export async function writeTicketWords(manager: Queryable, ticketId: number | string, before: SearchableText | null, after: SearchableText): Promise<void> {
  if (before && before.title === after.title && before.description === after.description) return;
  if (before) await manager.query('DELETE FROM ticket_words WHERE ticket_id = ?', [ticketId]);
  await insertTicketWords(manager, [{ id: ticketId, ...after }]);
}

/** The words of several tickets in one statement (also used by the migration that fills the index). */
export async function insertTicketWords(manager: Queryable, tickets: ReadonlyArray<SearchableText & { id: number | string }>): Promise<void> {
  const params: unknown[] = [];
  for (const ticket of tickets) {
    for (const word of ticketWords(ticket.title, ticket.description)) params.push(word, ticket.id);
  }
  if (params.length === 0) return;
  const values = '(?, ?),'.repeat(params.length / 2).slice(0, -1);
  await manager.query(`INSERT INTO ticket_words (word, ticket_id) VALUES ${values} ON DUPLICATE KEY UPDATE ticket_id = ticket_id`, params);
}
