import type { MigrationInterface, QueryRunner } from 'typeorm';
import { insertTicketWords } from '../../tickets/query/ticket-words.js';

const BATCH = 200;

/**
 * The search index of our own that replaces the FULLTEXT index: one row per (word, ticket), written in the
 * ticket's transaction (ticket-words.ts). The primary key (word, ticket_id) holds each word's tickets in id
 * order, so a page of a search in id order is read from its start and stops after the page; (ticket_id, word)
 * finds a ticket's words (to replace them, and for the foreign key). The words go with their ticket
 * (ON DELETE CASCADE). The collation is the tickets' one: a word matches in any case and with or without accents.
 *
 * The existing tickets are indexed here, 200 at a time (one INSERT of their words each), by the same tokenizer as the service's writes.
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
    for (let after = 0; ; ) {
      const tickets: Array<{ id: string; title: string; description: string }> = await queryRunner.query(
        'SELECT id, title, description FROM tickets WHERE id > ? ORDER BY id LIMIT ?',
        [after, BATCH],
      );
      if (tickets.length === 0) break;
      await insertTicketWords(queryRunner, tickets);
      after = Number(tickets.at(-1)!.id);
    }
    await queryRunner.query('ALTER TABLE tickets DROP INDEX ftx_tickets_title_description');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE tickets ADD FULLTEXT INDEX ftx_tickets_title_description (title, description)');
    await queryRunner.query('DROP TABLE ticket_words');
  }
}
