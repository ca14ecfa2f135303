import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `job_items.payload_bytes`: the size of an import's line, kept beside it, so that the lines a worker reads at a time
 * are chosen by their sizes without the database reading the lines themselves. Lines not yet worked get theirs now.
 */
export class ImportLineSizes1763900033000 implements MigrationInterface {
  name = 'ImportLineSizes1763900033000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE job_items ADD COLUMN payload_bytes int unsigned NULL');
    await queryRunner.query('UPDATE job_items SET payload_bytes = LENGTH(payload) WHERE payload IS NOT NULL AND outcome IS NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE job_items DROP COLUMN payload_bytes');
  }
}
