import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes a list reads in its sort order (docs/performance.md#tags-and-custom-fields):
 *
 * - `ticket_field_values.text_sort`: the first 255 characters of a text, enum or boolean value (a virtual column,
 *   computed, never written), indexed by field. A value of up to 1,000 characters is longer than an index key may be,
 *   and MariaDB never reads a prefix index (`text_value(255)`, which this replaces) in order; this one serves both the
 *   equality filters and `sort=field.<key>`. The number and date indexes already give a field's values in order.
 * - `tickets (updated_at)`: the tickets by their last change, whatever their status, which a list filtered by tags or
 *   fields and sorted by `-updatedAt` walks (checking each ticket's tags and values by key) until its page is full.
 */
export class SortByFieldsAndRecency1763900028000 implements MigrationInterface {
  name = 'SortByFieldsAndRecency1763900028000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const binary = await byteForByte(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ticket_field_values
        ADD COLUMN text_sort varchar(255) CHARACTER SET utf8mb4 COLLATE ${binary} AS (LEFT(text_value, 255)) VIRTUAL,
        ADD INDEX idx_field_values_text_sort (field_id, text_sort),
        DROP INDEX idx_field_values_text`);
    await queryRunner.query('ALTER TABLE tickets ADD INDEX idx_tickets_updated (updated_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE tickets DROP INDEX idx_tickets_updated');
    await queryRunner.query(`
      ALTER TABLE ticket_field_values
        ADD INDEX idx_field_values_text (field_id, text_value(255)),
        DROP INDEX idx_field_values_text_sort,
        DROP COLUMN text_sort`);
  }
}

/** The collation that compares byte for byte, trailing spaces included: MariaDB's `utf8mb4_nopad_bin`, MySQL 8's `utf8mb4_0900_bin`. */
async function byteForByte(queryRunner: QueryRunner): Promise<string> {
  const [{ version }] = (await queryRunner.query('SELECT VERSION() AS version')) as Array<{ version: string }>;
  return /mariadb/i.test(version) ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
}
