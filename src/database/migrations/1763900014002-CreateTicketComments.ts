import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A ticket's conversation. Comments go with their ticket (ON DELETE CASCADE); they are listed oldest first by id. */
export class CreateTicketComments1763900014002 implements MigrationInterface {
  name = 'CreateTicketComments1763900014002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ticket_comments (
        id bigint NOT NULL AUTO_INCREMENT,
        ticket_id bigint NOT NULL,
        body mediumtext NOT NULL,
        author varchar(255) NULL,
        visibility enum('PUBLIC','INTERNAL') NOT NULL,
        created_at datetime(3) NOT NULL,
        PRIMARY KEY (id),
        INDEX idx_ticket_comments_ticket (ticket_id, id),
        CONSTRAINT fk_ticket_comments_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id) ON DELETE CASCADE
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE ticket_comments');
  }
}
