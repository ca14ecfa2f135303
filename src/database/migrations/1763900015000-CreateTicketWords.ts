import type { MigrationInterface, QueryRunner } from 'typeorm';

const BATCH = 200;

/**
 * The search index of our own that replaces the FULLTEXT index: one row per (word, ticket), written in the
 * ticket's transaction (ticket-words.ts). The primary key (word, ticket_id) holds each word's tickets in id
 * order, so a page of a search in id order is read from its start and stops after the page; (ticket_id, word)
 * finds a ticket's words (to replace them, and for the foreign key). The words go with their ticket
 * (ON DELETE CASCADE). The collation is the tickets' one: a word matches in any case and with or without accents.
 *
 * The existing tickets are indexed here, 200 at a time (one INSERT of their words each), by the tokenizer as the
 * service had it when this migration was written (a copy below).
 *
 * A migration is frozen: once released it must never change, so that replaying it gives the same schema and rows
 * whenever and wherever it runs. It imports no live code; the tokenizer copied here must not follow later changes of
 * tickets/query/ticket-search.ts (a change of the index's words is a migration of its own).
 */
export class CreateTicketWords1763900015000 implements MigrationInterface {
  name = 'CreateTicketWords1763900015000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ticket_words (
        word varchar(64) COLLATE utf8mb4_unicode_ci NOT NULL,
        ticket_id bigint NOT NULL,
        PRIMARY KEY (word, ticket_id),
        INDEX idx_ticket_words_ticket (ticket_id, word),
        CONSTRAINT fk_ticket_words_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id) ON DELETE CASCADE
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    for (let after = 0; ;) {
      const tickets: Array<{ id: string; title: string; description: string }> = await queryRunner.query(
        'SELECT id, title, description FROM tickets WHERE id > ? ORDER BY id LIMIT ?',
        [after, BATCH],
      );
      if (tickets.length === 0) break;
      await insertWords(queryRunner, tickets);
      after = Number(tickets.at(-1)!.id);
    }
    await queryRunner.query('ALTER TABLE tickets DROP INDEX ftx_tickets_title_description');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE tickets ADD FULLTEXT INDEX ftx_tickets_title_description (title, description)');
    await queryRunner.query('DROP TABLE ticket_words');
  }
}

// The tokenizer of tickets/query/ticket-search.ts and the INSERT of tickets/query/ticket-words.ts as they were when
// this migration was written. Frozen: never change these, even when the service's tokenizer changes.

const MIN_WORD_LENGTH = 3;
const WORD_MAX_LENGTH = 64;
const INNODB_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about an are as at be by com de en for from how i in is it la of on or that the this to was what when where ' +
    'who will with und www'
  ).split(' '),
);
const WORD = /[\p{L}\p{M}\p{N}_]+/gu;

function normalisedWord(word: string): string | undefined {
  const lower = word.toLowerCase();
  const characters = [...lower];
  if (characters.length < MIN_WORD_LENGTH || INNODB_STOP_WORDS.has(lower)) return undefined;
  return characters.length > WORD_MAX_LENGTH ? characters.slice(0, WORD_MAX_LENGTH).join('') : lower;
}

function ticketWords(title: string, description: string): string[] {
  const words = new Set<string>();
  for (const text of [title, description]) {
    for (const match of text.match(WORD) ?? []) {
      const word = normalisedWord(match);
      if (word !== undefined) words.add(word);
    }
  }
  return [...words];
}

async function insertWords(queryRunner: QueryRunner, tickets: Array<{ id: string; title: string; description: string }>): Promise<void> {
  const rows = tickets.flatMap((ticket) =>
    ticketWords(ticket.title, ticket.description).map((word): [string, string] => [word, ticket.id]),
  );
  if (rows.length === 0) return;
  const values = '(?, ?),'.repeat(rows.length).slice(0, -1);
  await queryRunner.query(
    `INSERT INTO ticket_words (word, ticket_id) VALUES ${values} ON DUPLICATE KEY UPDATE ticket_id = ticket_id`,
    rows.flat(),
  );
}
