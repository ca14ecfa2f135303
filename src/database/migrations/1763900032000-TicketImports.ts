import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Imports from another desk (docs/import.md).
 *
 * - `ticket_imports`: the ticket each `external_id` (the other desk's id, compared exactly) became, the hash of the
 *   line it was last imported from (a line imported again unchanged changes nothing) and the keys of the comments
 *   imported into it (an edited line adds only the comments it did not have). It outlives its ticket, without one
 *   (`ticket_id` null), so that a ticket deleted here is not imported again.
 * - `job_items` of an import job hold their line (`payload`, checked when it was received) and its `external_id`,
 *   and name their ticket once it is written (`ticket_id`, until then null); `action` says what the line did
 *   (created, updated, unchanged).
 */
export class TicketImports1763900032000 implements MigrationInterface {
  name = 'TicketImports1763900032000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ticket_imports (
        external_id varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
        ticket_id bigint NULL,
        line_hash char(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        comment_keys longtext NOT NULL,
        imported_at datetime(3) NOT NULL,
        PRIMARY KEY (external_id),
        UNIQUE INDEX uq_ticket_imports_ticket (ticket_id),
        CONSTRAINT fk_ticket_imports_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id) ON DELETE SET NULL
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      ALTER TABLE job_items
        MODIFY ticket_id bigint NULL,
        MODIFY error mediumtext NULL,
        ADD COLUMN external_id varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
        ADD COLUMN action varchar(16) CHARACTER SET ascii COLLATE ascii_bin NULL,
        ADD COLUMN payload longtext NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("DELETE FROM jobs WHERE kind = 'import'");
    await queryRunner.query(
      'ALTER TABLE job_items DROP COLUMN payload, DROP COLUMN action, DROP COLUMN external_id, MODIFY error text NULL, MODIFY ticket_id bigint NOT NULL',
    );
    await queryRunner.query('DROP TABLE ticket_imports');
  }
}
