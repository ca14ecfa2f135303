import type { Queryable } from '../../database/statement-batch.js';
import { ticketWords } from './ticket-search.js';

/** What the search index is built from. */
export interface SearchableText {
  title: string;
  description: string;
}

/**
 * `ticket_words` (the search index, migration CreateTicketWords) is written in the write's own transaction: a ticket
 * is searchable by exactly the words it has once its write commits, and a write that rolls back leaves no words
 * behind. The rows go with their ticket by foreign key (ON DELETE CASCADE). A new ticket's words: insertTicketWords.
 *
 * An update (`before` the ticket as it was): when neither title nor description changed, nothing is written.
 * Otherwise the words it lost are deleted, each by its primary key, and its words inserted. Deleting by primary key
 * locks just those rows: a delete by ticket_id would also lock the gap up to the next ticket's words, and two
 * updates of neighbouring tickets would deadlock inserting into each other's gap. The collation makes "Café" and
 * "cafe" one key, so a word that is there already is skipped rather than an error, and one deleted as lost ("Café")
 * while the ticket still has it in another spelling ("cafe") is inserted again.
 */
export async function updateTicketWords(
  manager: Queryable,
  ticketId: number | string,
  before: SearchableText,
  after: SearchableText,
): Promise<void> {
  if (before.title === after.title && before.description === after.description) return;
  const words = ticketWords(after.title, after.description);
  // One statement a word, each naming its whole primary key: MariaDB reads `(word, ticket_id) IN ((?, ?))` with a
  // single pair by scanning the table, which locks every row of it; these go out in one round trip all the same.
  for (const word of ticketWords(before.title, before.description)) {
    if (!words.includes(word)) await manager.query('DELETE FROM ticket_words WHERE word = ? AND ticket_id = ?', [word, Number(ticketId)]);
  }
  await insertWords(
    manager,
    words.map((word) => [word, ticketId]),
  );
}

/** The words of new tickets, several in one statement (creates written together). */
export async function insertTicketWords(
  manager: Queryable,
  tickets: ReadonlyArray<SearchableText & { id: number | string }>,
): Promise<void> {
  await insertWords(
    manager,
    tickets.flatMap((ticket) => ticketWords(ticket.title, ticket.description).map((word): [string, number | string] => [word, ticket.id])),
  );
}

async function insertWords(manager: Queryable, rows: Array<[string, number | string]>): Promise<void> {
  if (rows.length === 0) return;
  const values = '(?, ?),'.repeat(rows.length).slice(0, -1);
  await manager.query(
    `INSERT INTO ticket_words (word, ticket_id) VALUES ${values} ON DUPLICATE KEY UPDATE ticket_id = ticket_id`,
    rows.flat(),
  );
}
