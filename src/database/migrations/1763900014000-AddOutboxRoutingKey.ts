import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each outbox row names its routing key, so events of new kinds (DELETED, COMMENT_ADDED) go to keys of their own
 * in the same ordered stream as a ticket's CREATED and UPDATED. NULL means the configured RABBITMQ_ROUTING_KEY:
 * rows written before this migration, and CREATED/UPDATED rows, keep going where they always went.
 */
export class AddOutboxRoutingKey1763900014000 implements MigrationInterface {
  name = 'AddOutboxRoutingKey1763900014000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE outbox ADD COLUMN routing_key varchar(255) NULL AFTER event_type');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE outbox DROP COLUMN routing_key');
  }
}
