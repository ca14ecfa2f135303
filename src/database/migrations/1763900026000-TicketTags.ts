import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tags (docs/api.md#tags): one row per ticket and tag. The primary key (tag, ticket_id) is the list of a tag's tickets
 * in id order, which a list filtered by tags reads from (ticket-query-sql.ts) and the tags in use are counted from;
 * (ticket_id), with the primary key InnoDB adds to it, gives a ticket's tags. Binary collation: tags are stored in canonical form (src/tags/tags.ts).
 */
export class TicketTags1763900026000 implements MigrationInterface {
  name = 'TicketTags1763900026000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ticket_tags (
        tag varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
        ticket_id bigint NOT NULL,
        PRIMARY KEY (tag, ticket_id),
        INDEX idx_ticket_tags_ticket (ticket_id),
        CONSTRAINT fk_ticket_tags_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id) ON DELETE CASCADE
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE ticket_tags');
  }
}
