import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency scopes (a token's subject) compare byte for byte: a utf8mb4_bin varchar still ignores trailing spaces
 * (PAD SPACE), so `alice` and `alice ` shared their keys. varbinary has no padding; 1020 bytes hold 255 utf8mb4
 * characters. Keys need no change: HTTP strips the spaces around a header's value.
 */
export class ExactIdempotencyScopes1763900016300 implements MigrationInterface {
  name = 'ExactIdempotencyScopes1763900016300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE idempotency_keys MODIFY scope varbinary(1020) NOT NULL DEFAULT ''`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE idempotency_keys MODIFY scope varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT ''`,
    );
  }
}
