import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Merged tickets (docs/api.md#merge): one row per source merged into a target, holding what an unmerge restores.
 *
 * - `source_id` is the key: a ticket is merged into one target at most. (target_id) finds what was merged into a target,
 *   for the shared view of comments and attachments.
 * - `status_before`, `resolved_at_before`: the source's status and resolution time before the merge closed it.
 * - `link_id`: the `duplicate-of` link the merge added (null when the source already had it), removed by the unmerge.
 * - `participants_added`: the addresses the target gained from this source (a JSON array), removed by the unmerge
 *   unless another source still merged into the target brought them too.
 * - Deleting either ticket deletes the row: a deleted target leaves its sources closed, a deleted source takes its
 *   comments and attachments with it.
 */
export class TicketMerges1763900030000 implements MigrationInterface {
  name = 'TicketMerges1763900030000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ticket_merges (
        source_id bigint NOT NULL,
        target_id bigint NOT NULL,
        merged_at datetime(3) NOT NULL,
        merged_by varchar(255) NULL,
        status_before varchar(32) NOT NULL,
        resolved_at_before datetime(3) NULL,
        link_id bigint NULL,
        participants_added text NOT NULL,
        PRIMARY KEY (source_id),
        INDEX idx_ticket_merges_target (target_id, source_id),
        CONSTRAINT fk_ticket_merges_source FOREIGN KEY (source_id) REFERENCES tickets (id) ON DELETE CASCADE,
        CONSTRAINT fk_ticket_merges_target FOREIGN KEY (target_id) REFERENCES tickets (id) ON DELETE CASCADE
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE ticket_merges');
  }
}
