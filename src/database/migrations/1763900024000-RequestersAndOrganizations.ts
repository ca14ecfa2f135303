import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the visibility rule (src/people/visibility.ts) reads. `tickets` gains its requester's address in the canonical
 * form (lower case, compared byte for byte: the column's own collation would also equate accented letters) and its
 * domain, both indexed, so that a requester's tickets are read from an index alone (adding STORED columns rewrites
 * the table: at a million tickets, run it in a quiet window); a ticket's participants (ccEmails) are rows of `ticket_participants`, found by address;
 * organizations own their domains and members, each address or domain in one organization at most (primary keys).
 */
export class RequestersAndOrganizations1763900024000 implements MigrationInterface {
  name = 'RequestersAndOrganizations1763900024000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE tickets
        ADD COLUMN requester_key varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin AS (LOWER(requester_email)) STORED,
        ADD COLUMN requester_domain varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
          AS (SUBSTRING_INDEX(LOWER(requester_email), '@', -1)) STORED,
        ADD INDEX idx_tickets_requester_key (requester_key),
        ADD INDEX idx_tickets_requester_domain (requester_domain, requester_key)`);
    await queryRunner.query(`
      CREATE TABLE ticket_participants (
        ticket_id bigint NOT NULL,
        email varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
        position tinyint NOT NULL,
        PRIMARY KEY (ticket_id, email),
        INDEX idx_ticket_participants_email (email, ticket_id),
        CONSTRAINT fk_ticket_participants_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id) ON DELETE CASCADE
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      CREATE TABLE organizations (
        id bigint NOT NULL AUTO_INCREMENT,
        name varchar(255) NOT NULL,
        shared_tickets tinyint(1) NOT NULL DEFAULT 0,
        shared_comments tinyint(1) NOT NULL DEFAULT 0,
        created_at datetime(3) NOT NULL,
        updated_at datetime(3) NOT NULL,
        PRIMARY KEY (id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    for (const [table, column] of [
      ['organization_domains', 'domain'],
      ['organization_members', 'email'],
    ]) {
      await queryRunner.query(`
        CREATE TABLE ${table} (
          ${column} varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
          organization_id bigint NOT NULL,
          PRIMARY KEY (${column}),
          INDEX idx_${table}_organization (organization_id, ${column}),
          CONSTRAINT fk_${table}_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE organization_members');
    await queryRunner.query('DROP TABLE organization_domains');
    await queryRunner.query('DROP TABLE organizations');
    await queryRunner.query('DROP TABLE ticket_participants');
    await queryRunner.query(`
      ALTER TABLE tickets
        DROP INDEX idx_tickets_requester_domain,
        DROP INDEX idx_tickets_requester_key,
        DROP COLUMN requester_domain,
        DROP COLUMN requester_key`);
  }
}
