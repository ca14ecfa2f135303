import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Outbox partitions and the relay's leases. A partition number is derived from the ticket id, so all of a
 * ticket's events share one; existing rows get the number the default of 8 partitions gives them. A lease is a
 * row claimed by a committed conditional UPDATE (epoch + 1 on every change of owner), which every MySQL-compatible
 * engine and cluster replicates, unlike GET_LOCK.
 */
export class PartitionOutbox1763900000002 implements MigrationInterface {
  name = 'PartitionOutbox1763900000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE outbox
        ADD COLUMN partition_no smallint NOT NULL DEFAULT 0 AFTER ticket_id,
        ADD INDEX idx_outbox_partition_pending (partition_no, parked_at, id)`);
    await queryRunner.query('UPDATE outbox SET partition_no = ticket_id MOD 8');
    await queryRunner.query(`
      CREATE TABLE outbox_lease (
        partition_no smallint NOT NULL,
        owner varchar(100) NULL,
        epoch bigint NOT NULL DEFAULT 0,
        expires_at datetime(3) NOT NULL,
        PRIMARY KEY (partition_no)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      CREATE TABLE outbox_relay (
        owner varchar(100) NOT NULL,
        expires_at datetime(3) NOT NULL,
        PRIMARY KEY (owner)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE outbox_relay');
    await queryRunner.query('DROP TABLE outbox_lease');
    await queryRunner.query('ALTER TABLE outbox DROP INDEX idx_outbox_partition_pending, DROP COLUMN partition_no');
  }
}
