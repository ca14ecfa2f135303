import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateOutbox1763900000001 implements MigrationInterface {
  name = 'CreateOutbox1763900000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE outbox (
        id bigint NOT NULL AUTO_INCREMENT,
        event_id char(36) NOT NULL,
        event_type varchar(16) NOT NULL,
        ticket_id bigint NOT NULL,
        payload mediumtext NOT NULL,
        occurred_at datetime(3) NOT NULL,
        attempts int NOT NULL DEFAULT 0,
        last_error varchar(500) NULL,
        parked_at datetime(3) NULL,
        PRIMARY KEY (id),
        UNIQUE INDEX uq_outbox_event_id (event_id),
        INDEX idx_outbox_pending (parked_at, id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE outbox');
  }
}
