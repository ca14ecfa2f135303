import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Custom fields (docs/api.md#custom-fields), defined as data, so that defining one changes no schema (a cluster runs
 * DDL everywhere at once, blocking).
 *
 * - `field_definitions`: each field's key (unique, fixed), type and rules.
 * - `ticket_field_values`: a ticket's value of a field, in the column of its type: text, enum and boolean (`true` or
 *   `false`) in `text_value` (compared byte for byte, trailing spaces included: nopad), numbers in `number_value` (decimal(38,10)), dates in `date_value`; a multi_enum has one row
 *   per item (`item`). Each column's index by field serves the filters: a field's tickets with a value (or range of
 *   values), then their ids.
 */
export class CustomFields1763900027000 implements MigrationInterface {
  name = 'CustomFields1763900027000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE field_definitions (
        id int NOT NULL AUTO_INCREMENT,
        field_key varchar(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        label varchar(255) NOT NULL,
        type enum('text', 'number', 'date', 'boolean', 'enum', 'multi_enum') NOT NULL,
        required tinyint(1) NOT NULL DEFAULT 0,
        options mediumtext NULL,
        min_value double NULL,
        max_value double NULL,
        pattern varchar(500) NULL,
        description varchar(1000) NULL,
        created_at datetime(3) NOT NULL,
        updated_at datetime(3) NOT NULL,
        PRIMARY KEY (id),
        UNIQUE INDEX uq_field_definitions_key (field_key)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    const binary = await byteForByte(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ticket_field_values (
        ticket_id bigint NOT NULL,
        field_id int NOT NULL,
        item smallint NOT NULL DEFAULT 0,
        text_value varchar(1000) CHARACTER SET utf8mb4 COLLATE ${binary} NULL,
        number_value decimal(38,10) NULL,
        date_value date NULL,
        PRIMARY KEY (ticket_id, field_id, item),
        INDEX idx_field_values_text (field_id, text_value(255)),
        INDEX idx_field_values_number (field_id, number_value),
        INDEX idx_field_values_date (field_id, date_value),
        CONSTRAINT fk_field_values_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id) ON DELETE CASCADE,
        CONSTRAINT fk_field_values_field FOREIGN KEY (field_id) REFERENCES field_definitions (id) ON DELETE CASCADE
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE ticket_field_values');
    await queryRunner.query('DROP TABLE field_definitions');
  }
}

/** The collation that compares byte for byte, trailing spaces included: MariaDB's `utf8mb4_nopad_bin`, MySQL 8's `utf8mb4_0900_bin`. */
async function byteForByte(queryRunner: QueryRunner): Promise<string> {
  const [{ version }] = (await queryRunner.query('SELECT VERSION() AS version')) as Array<{ version: string }>;
  return /mariadb/i.test(version) ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
}
