import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `webhook_deliveries.webhook_id` loses its foreign key: checking one takes a shared lock on the endpoint's row for
 * every delivery a ticket write records, so an endpoint update held open (disabling one pauses its whole backlog)
 * made every ticket write wait. An endpoint's delete removes its deliveries itself, in batches, and the dispatcher
 * removes the pending deliveries a write recorded for an endpoint while it was being deleted.
 */
export class WebhookDeliveriesWithoutForeignKey1763900021000 implements MigrationInterface {
  name = 'WebhookDeliveriesWithoutForeignKey1763900021000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE webhook_deliveries DROP FOREIGN KEY fk_webhook_deliveries_webhook');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE d FROM webhook_deliveries d LEFT JOIN webhooks w ON w.id = d.webhook_id WHERE w.id IS NULL');
    await queryRunner.query(
      'ALTER TABLE webhook_deliveries ADD CONSTRAINT fk_webhook_deliveries_webhook FOREIGN KEY (webhook_id) REFERENCES webhooks (id) ON DELETE CASCADE',
    );
  }
}
