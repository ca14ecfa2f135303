import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit trail: one row per write of a ticket, written in the write's transaction. Rows go with their ticket
 * (ON DELETE CASCADE), as the ticket's record does; the DELETED event carries the final state for archives.
 * `changes` is the JSON of `{field: {from, to}}` as the API serves it.
 */
export class CreateTicketHistory1763900014001 implements MigrationInterface {
  name = 'CreateTicketHistory1763900014001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ticket_history (
        id bigint NOT NULL AUTO_INCREMENT,
        ticket_id bigint NOT NULL,
        occurred_at datetime(3) NOT NULL,
        actor varchar(255) NULL,
        action varchar(16) NOT NULL,
        changes mediumtext NOT NULL,
        PRIMARY KEY (id),
        INDEX idx_ticket_history_ticket (ticket_id, id),
        CONSTRAINT fk_ticket_history_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id) ON DELETE CASCADE
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE ticket_history');
  }
}
