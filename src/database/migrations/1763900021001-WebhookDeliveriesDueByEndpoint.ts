import type { MigrationInterface, QueryRunner } from 'typeorm';

/** An endpoint's due deliveries, oldest due first: the dispatcher reads a bounded number of them per endpoint. */
export class WebhookDeliveriesDueByEndpoint1763900021001 implements MigrationInterface {
  name = 'WebhookDeliveriesDueByEndpoint1763900021001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX idx_webhook_deliveries_endpoint_due ON webhook_deliveries (webhook_id, status, next_attempt_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX idx_webhook_deliveries_endpoint_due ON webhook_deliveries');
  }
}
