import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys, Stripe's way: a row per (scope, key) with a state. `started` is inserted (and committed) before
 * the write runs, so a concurrent request with the key sees it in flight; the write's own transaction turns it
 * into `finished` with the response to replay. `token` fences a started row: only the request that claimed it
 * can finish or drop it. `scope` is the client identity once authentication exists, '' until then. Keys compare
 * byte for byte (utf8mb4_bin). Rows past `expires_at` are purged in batches.
 */
export class CreateIdempotencyKeys1763900014003 implements MigrationInterface {
  name = 'CreateIdempotencyKeys1763900014003';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE idempotency_keys (
        scope varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT '',
        idem_key varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
        request_hash char(64) NOT NULL,
        state enum('started','finished') NOT NULL,
        token char(36) NOT NULL,
        started_at datetime(3) NOT NULL,
        expires_at datetime(3) NOT NULL,
        status smallint NULL,
        location varchar(2048) NULL,
        etag varchar(255) NULL,
        body mediumtext NULL,
        PRIMARY KEY (scope, idem_key),
        INDEX idx_idempotency_keys_expires (expires_at)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE idempotency_keys');
  }
}
