import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateTickets1763900000000 implements MigrationInterface {
  name = 'CreateTickets1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE tickets (
        id bigint NOT NULL AUTO_INCREMENT,
        title varchar(255) NOT NULL,
        description varchar(2000) NOT NULL,
        status enum('OPEN','IN_PROGRESS','WAITING_ON_CUSTOMER','RESOLVED','CLOSED') NOT NULL,
        priority enum('LOW','MEDIUM','HIGH','CRITICAL') NOT NULL,
        requester_email varchar(255) COLLATE utf8mb4_unicode_ci NOT NULL,
        assigned_to varchar(255) NULL,
        created_at datetime(3) NOT NULL,
        updated_at datetime(3) NOT NULL,
        resolved_at datetime(3) NULL,
        PRIMARY KEY (id),
        INDEX idx_tickets_status (status),
        INDEX idx_tickets_requester_email (requester_email)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE tickets');
  }
}
