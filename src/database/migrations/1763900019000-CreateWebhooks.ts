import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints and their deliveries. A delivery row is written in the transaction of the event it carries
 * (one per subscribed endpoint) and holds all it needs to be sent (the event's JSON among it), so delivery never
 * depends on the outbox row, which goes once RabbitMQ has the event. A replica claims a delivery by a conditional
 * update of lease_owner, lease_epoch and lease_until; its outcome is recorded only while owner and epoch are
 * still its own.
 */
export class CreateWebhooks1763900019000 implements MigrationInterface {
  name = 'CreateWebhooks1763900019000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhooks (
        id bigint NOT NULL AUTO_INCREMENT,
        url varchar(2048) NOT NULL,
        description varchar(500) NULL,
        event_types varchar(1000) NULL,
        enabled tinyint(1) NOT NULL DEFAULT 1,
        disabled_reason varchar(255) NULL,
        secret varchar(100) NOT NULL,
        previous_secret varchar(100) NULL,
        previous_secret_until datetime(3) NULL,
        failing_since datetime(3) NULL,
        created_at datetime(3) NOT NULL,
        updated_at datetime(3) NOT NULL,
        PRIMARY KEY (id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id bigint NOT NULL AUTO_INCREMENT,
        webhook_id bigint NOT NULL,
        event_id char(36) NOT NULL,
        event_type varchar(32) NOT NULL,
        type varchar(255) NOT NULL,
        ticket_id bigint NOT NULL,
        payload mediumtext NOT NULL,
        occurred_at datetime(3) NOT NULL,
        created_at datetime(3) NOT NULL,
        status enum('pending','succeeded','failed') NOT NULL DEFAULT 'pending',
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at datetime(3) NULL,
        last_attempt_at datetime(3) NULL,
        last_status_code smallint NULL,
        last_error varchar(500) NULL,
        duration_ms int NULL,
        lease_owner varchar(100) NULL,
        lease_epoch int NOT NULL DEFAULT 0,
        lease_until datetime(3) NULL,
        PRIMARY KEY (id),
        INDEX idx_webhook_deliveries_due (status, next_attempt_at),
        INDEX idx_webhook_deliveries_chain (webhook_id, ticket_id, status, id),
        INDEX idx_webhook_deliveries_webhook (webhook_id, id),
        INDEX idx_webhook_deliveries_finished (status, created_at),
        CONSTRAINT fk_webhook_deliveries_webhook FOREIGN KEY (webhook_id) REFERENCES webhooks (id) ON DELETE CASCADE
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE webhook_deliveries');
    await queryRunner.query('DROP TABLE webhooks');
  }
}
