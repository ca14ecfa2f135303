import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A ticket's attachments: one metadata row each, their bytes in 1 MiB rows of `attachment_chunks` (database storage)
 * or in a file (filesystem storage, `storage` says which). `ticket_id` has no foreign key on purpose: checking one takes
 * a shared lock on the ticket's row for the whole upload, which would make every update of the ticket wait for a
 * slow upload; the ticket's delete removes its attachments itself, and an upload locks the ticket only at its end.
 * Chunks go with their attachment (ON DELETE CASCADE). A comment may name attachments of its ticket
 * (`comment_attachments`); such an attachment cannot be deleted while the comment names it (RESTRICT).
 * The outbox's event_type grows to 32 characters for ATTACHMENT_DELETED.
 */
export class CreateTicketAttachments1763900020000 implements MigrationInterface {
  name = 'CreateTicketAttachments1763900020000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE outbox MODIFY event_type varchar(32) NOT NULL');
    await queryRunner.query(`
      CREATE TABLE ticket_attachments (
        id bigint NOT NULL AUTO_INCREMENT,
        ticket_id bigint NOT NULL,
        filename varchar(255) NOT NULL,
        content_type varchar(255) NOT NULL,
        size bigint NOT NULL,
        sha256 char(64) NOT NULL,
        storage enum('database','filesystem') NOT NULL,
        created_at datetime(3) NOT NULL,
        created_by varchar(255) NULL,
        PRIMARY KEY (id),
        INDEX idx_ticket_attachments_ticket (ticket_id, id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      CREATE TABLE attachment_chunks (
        attachment_id bigint NOT NULL,
        seq int NOT NULL,
        data mediumblob NOT NULL,
        PRIMARY KEY (attachment_id, seq),
        CONSTRAINT fk_attachment_chunks_attachment FOREIGN KEY (attachment_id) REFERENCES ticket_attachments (id) ON DELETE CASCADE
      ) ENGINE=InnoDB`);
    await queryRunner.query(`
      CREATE TABLE comment_attachments (
        comment_id bigint NOT NULL,
        attachment_id bigint NOT NULL,
        PRIMARY KEY (comment_id, attachment_id),
        INDEX idx_comment_attachments_attachment (attachment_id),
        CONSTRAINT fk_comment_attachments_comment FOREIGN KEY (comment_id) REFERENCES ticket_comments (id) ON DELETE CASCADE,
        CONSTRAINT fk_comment_attachments_attachment FOREIGN KEY (attachment_id) REFERENCES ticket_attachments (id)
      ) ENGINE=InnoDB`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE comment_attachments');
    await queryRunner.query('DROP TABLE attachment_chunks');
    await queryRunner.query('DROP TABLE ticket_attachments');
    await queryRunner.query('ALTER TABLE outbox MODIFY event_type varchar(16) NOT NULL');
  }
}
