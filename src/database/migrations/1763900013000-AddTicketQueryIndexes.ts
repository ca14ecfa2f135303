import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the list queries: a FULLTEXT index for `q`, and one composite index per common queue, each
 * ending in id so that the queue is read in its order (ties by id) without a sort. idx_tickets_status and
 * idx_tickets_requester_email stay: they are (status, id) and (requester_email, id) for the lists sorted by id.
 * (The FULLTEXT index was replaced later by a word index of the service's own: migration CreateTicketWords.)
 */
export class AddTicketQueryIndexes1763900013000 implements MigrationInterface {
  name = 'AddTicketQueryIndexes1763900013000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE tickets
        ADD INDEX idx_tickets_status_updated (status, updated_at, id),
        ADD INDEX idx_tickets_assignee_status (assigned_to, status, id),
        ADD INDEX idx_tickets_requester_created (requester_email, created_at, id),
        ADD INDEX idx_tickets_priority_status (priority, status, id)`);
    // A FULLTEXT index is added on its own: InnoDB builds it in a separate pass (and adds its FTS_DOC_ID).
    await queryRunner.query('ALTER TABLE tickets ADD FULLTEXT INDEX ftx_tickets_title_description (title, description)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE tickets DROP INDEX ftx_tickets_title_description');
    await queryRunner.query(`
      ALTER TABLE tickets
        DROP INDEX idx_tickets_status_updated,
        DROP INDEX idx_tickets_assignee_status,
        DROP INDEX idx_tickets_requester_created,
        DROP INDEX idx_tickets_priority_status`);
  }
}
