import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C trace context of the request that recorded an event, so the relay's publish belongs to that trace however
 * much later it happens. NULL when tracing is off. A traceparent is 55 characters; tracestate is at most 32
 * list members, which 512 characters hold in practice.
 */
export class OutboxTraceContext1763900000003 implements MigrationInterface {
  name = 'OutboxTraceContext1763900000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE outbox ADD COLUMN traceparent varchar(55) NULL, ADD COLUMN tracestate varchar(512) NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE outbox DROP COLUMN tracestate, DROP COLUMN traceparent');
  }
}
