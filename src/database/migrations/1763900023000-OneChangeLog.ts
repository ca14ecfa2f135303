import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per change (docs/architecture.md#the-change-log). `change_feed` becomes `change_log` and takes on what
 * only `outbox` held: the partition, routing key and trace context the relay publishes with, and the relay's state
 * of the row (`relay_status`: pending, published or parked, with its attempts and last refusal), which the relay
 * now sets instead of deleting the row. Every change was written to both tables in one transaction, so each outbox
 * row still waiting (pending or parked) has its change_log row, found by event id, which takes its state; one
 * without (recorded before the change feed existed) is added. The columns are added in place (MariaDB's instant
 * ADD COLUMN), rows already published needing nothing but the default. Finding a waiting row's change by event id
 * is one pass over the log (event_id has no index). An outbox row without a change (only one recorded before the
 * change feed existed can be) is added after the others: were it still pending, it would go out after the later
 * events of its ticket.
 *
 * Webhooks stop fanning each change out into a delivery row per endpoint as it is written: each endpoint reads the
 * log from its cursor (`webhook_cursors`, a row of its own so that the dispatcher moving it never waits for an
 * endpoint's update): `delivered_through`, the seq up to which its deliveries have been made, and
 * `after_change_id`, the last change recorded before the endpoint was created (it gets none of those). Deliveries
 * already written stay and go out as before; so that no change is delivered twice, every endpoint starts after all
 * the changes recorded so far, also those not yet numbered.
 */
export class OneChangeLog1763900023000 implements MigrationInterface {
  name = 'OneChangeLog1763900023000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('RENAME TABLE change_feed TO change_log');
    await queryRunner.query(`
      ALTER TABLE change_log
        ADD COLUMN routing_key varchar(255) NULL AFTER event_type,
        ADD COLUMN partition_no smallint NOT NULL DEFAULT 0 AFTER ticket_id,
        ADD COLUMN traceparent varchar(55) NULL,
        ADD COLUMN tracestate varchar(512) NULL,
        ADD COLUMN relay_status enum('pending', 'published', 'parked') NOT NULL DEFAULT 'published',
        ADD COLUMN attempts int NOT NULL DEFAULT 0,
        ADD COLUMN last_error varchar(500) NULL,
        ADD COLUMN parked_at datetime(3) NULL`);
    await queryRunner.query(`ALTER TABLE change_log ALTER COLUMN relay_status SET DEFAULT 'pending'`);
    await queryRunner.query(`
      UPDATE change_log c JOIN outbox o ON o.event_id = c.event_id
      SET c.routing_key = o.routing_key, c.partition_no = o.partition_no, c.traceparent = o.traceparent, c.tracestate = o.tracestate,
          c.relay_status = IF(o.parked_at IS NULL, 'pending', 'parked'), c.attempts = o.attempts, c.last_error = o.last_error,
          c.parked_at = o.parked_at`);
    await queryRunner.query(`
      INSERT INTO change_log (event_id, event_type, routing_key, ticket_id, partition_no, occurred_at, payload, traceparent, tracestate,
                              relay_status, attempts, last_error, parked_at)
      SELECT o.event_id, o.event_type, o.routing_key, o.ticket_id, o.partition_no, o.occurred_at, o.payload, o.traceparent, o.tracestate,
             IF(o.parked_at IS NULL, 'pending', 'parked'), o.attempts, o.last_error, o.parked_at
      FROM outbox o WHERE NOT EXISTS (SELECT 1 FROM change_log c WHERE c.event_id = o.event_id) ORDER BY o.id`);
    await queryRunner.query('CREATE INDEX idx_change_log_relay ON change_log (partition_no, relay_status, id)');
    await queryRunner.query('DROP TABLE outbox');

    await queryRunner.query(`
      CREATE TABLE webhook_cursors (
        webhook_id bigint NOT NULL,
        delivered_through bigint NOT NULL,
        after_change_id bigint NOT NULL,
        PRIMARY KEY (webhook_id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      INSERT INTO webhook_cursors (webhook_id, delivered_through, after_change_id)
      SELECT w.id, (SELECT last_seq FROM change_feed_sequencer WHERE id = 1), (SELECT COALESCE(MAX(id), 0) FROM change_log)
      FROM webhooks w`);
  }

  /** Back to the outbox: the changes not yet published go back into it; what endpoints had not reached is not delivered. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE webhook_cursors');
    await queryRunner.query(`
      CREATE TABLE outbox (
        id bigint NOT NULL AUTO_INCREMENT,
        event_id char(36) NOT NULL,
        event_type varchar(32) NOT NULL,
        routing_key varchar(255) NULL,
        ticket_id bigint NOT NULL,
        partition_no smallint NOT NULL DEFAULT 0,
        payload mediumtext NOT NULL,
        occurred_at datetime(3) NOT NULL,
        attempts int NOT NULL DEFAULT 0,
        last_error varchar(500) NULL,
        parked_at datetime(3) NULL,
        traceparent varchar(55) NULL,
        tracestate varchar(512) NULL,
        PRIMARY KEY (id),
        UNIQUE INDEX uq_outbox_event_id (event_id),
        INDEX idx_outbox_pending (parked_at, id),
        INDEX idx_outbox_partition_pending (partition_no, parked_at, id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      INSERT INTO outbox (event_id, event_type, routing_key, ticket_id, partition_no, payload, occurred_at, attempts, last_error, parked_at,
                          traceparent, tracestate)
      SELECT event_id, event_type, routing_key, ticket_id, partition_no, payload, occurred_at, attempts, last_error, parked_at,
             traceparent, tracestate
      FROM change_log WHERE relay_status <> 'published' ORDER BY id`);
    await queryRunner.query(`
      ALTER TABLE change_log DROP INDEX idx_change_log_relay, DROP COLUMN routing_key, DROP COLUMN partition_no, DROP COLUMN traceparent,
        DROP COLUMN tracestate, DROP COLUMN relay_status, DROP COLUMN attempts, DROP COLUMN last_error, DROP COLUMN parked_at`);
    await queryRunner.query('RENAME TABLE change_log TO change_feed');
  }
}
