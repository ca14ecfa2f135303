import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Links between tickets (docs/api.md#links), each stored once in the direction its kind is named in (`relates-to` from
 * the smaller id), and shown from both tickets with the type as seen from each.
 *
 * - `ticket_link_kinds`: the four kinds. A link of a hierarchy (`parent-of`, `causes`) is added after writing its kind's
 *   row (`links_added`): such adds are serialized, so two of them can never close a cycle together, on a cluster too
 *   (two nodes writing one row conflict at commit).
 * - `ticket_links`: unique by (from, to, kind); (to_id) finds a ticket's links from the other side. Deleting a ticket
 *   deletes its links.
 */
export class TicketLinks1763900029000 implements MigrationInterface {
  name = 'TicketLinks1763900029000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ticket_link_kinds (
        kind varchar(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        links_added bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (kind)
      ) ENGINE=InnoDB`);
    await queryRunner.query("INSERT INTO ticket_link_kinds (kind) VALUES ('relates-to'), ('duplicate-of'), ('parent-of'), ('causes')");
    await queryRunner.query(`
      CREATE TABLE ticket_links (
        id bigint NOT NULL AUTO_INCREMENT,
        from_id bigint NOT NULL,
        to_id bigint NOT NULL,
        kind varchar(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        created_at datetime(3) NOT NULL,
        created_by varchar(255) NULL,
        PRIMARY KEY (id),
        UNIQUE INDEX uq_ticket_links (from_id, to_id, kind),
        INDEX idx_ticket_links_to (to_id, kind),
        CONSTRAINT fk_ticket_links_from FOREIGN KEY (from_id) REFERENCES tickets (id) ON DELETE CASCADE,
        CONSTRAINT fk_ticket_links_to FOREIGN KEY (to_id) REFERENCES tickets (id) ON DELETE CASCADE,
        CONSTRAINT fk_ticket_links_kind FOREIGN KEY (kind) REFERENCES ticket_link_kinds (kind)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE ticket_links');
    await queryRunner.query('DROP TABLE ticket_link_kinds');
  }
}
