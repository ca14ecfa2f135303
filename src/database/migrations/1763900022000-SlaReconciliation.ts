import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the SLA reconciliation needs (docs/sla.md#switching-sla-off-and-on). `tickets.sla_synced_at`: the time of the
 * last write whose clocks were kept, written only while SLA is on, so a later history entry is one the clocks did
 * not see; added NULL, which MariaDB does in place. `sla_reconciliation` holds how far the history has been looked
 * through, starting where it ends now: entries before this migration are left as they are.
 */
export class SlaReconciliation1763900022000 implements MigrationInterface {
  name = 'SlaReconciliation1763900022000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE tickets ADD COLUMN sla_synced_at datetime(3) NULL');
    await queryRunner.query(`
      CREATE TABLE sla_reconciliation (
        id tinyint NOT NULL,
        history_id bigint NOT NULL,
        PRIMARY KEY (id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query('INSERT INTO sla_reconciliation (id, history_id) SELECT 1, COALESCE(MAX(id), 0) FROM ticket_history');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE sla_reconciliation');
    await queryRunner.query('ALTER TABLE tickets DROP COLUMN sla_synced_at');
  }
}
