import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The change feed: a row per outbox event, written in the event's transaction, numbered (`seq`) after it committed
 * by the one sequencer holding the lease row of `change_feed_sequencer`, which also keeps the numbering's high
 * mark (`last_seq`, so pruning every row does not restart it) and how far retention has deleted (`pruned_through`).
 * The sequencer stamps each change with `sequenced_at`, the database's clock when it was numbered, never less than
 * the stamp before (`last_sequenced_at`): it rises with seq, so `since` and retention map an instant to a prefix.
 */
export class CreateChangeFeed1763900018000 implements MigrationInterface {
  name = 'CreateChangeFeed1763900018000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE change_feed (
        id bigint NOT NULL AUTO_INCREMENT,
        seq bigint NULL,
        sequenced_at datetime(3) NULL,
        event_id char(36) NOT NULL,
        event_type varchar(32) NOT NULL,
        ticket_id bigint NOT NULL,
        occurred_at datetime(3) NOT NULL,
        payload mediumtext NOT NULL,
        PRIMARY KEY (id),
        UNIQUE INDEX uq_change_feed_seq (seq),
        INDEX idx_change_feed_sequenced_at (sequenced_at, seq)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      CREATE TABLE change_feed_sequencer (
        id tinyint NOT NULL,
        owner varchar(100) NULL,
        epoch bigint NOT NULL DEFAULT 0,
        expires_at datetime(3) NOT NULL,
        last_seq bigint NOT NULL DEFAULT 0,
        pruned_through bigint NOT NULL DEFAULT 0,
        last_sequenced_at datetime(3) NULL,
        PRIMARY KEY (id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query('INSERT INTO change_feed_sequencer (id, expires_at) VALUES (1, NOW(3))');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE change_feed_sequencer');
    await queryRunner.query('DROP TABLE change_feed');
  }
}
