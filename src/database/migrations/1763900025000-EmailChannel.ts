import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The email channel (docs/email.md).
 *
 * - `change_log.context`: what a mail notification needs to know of a change beyond its event (who caused it, the
 *   status it moved from, whether it may notify at all), as JSON; NULL for changes that say nothing more. The event's
 *   payload stays byte for byte what every other channel reads. Adding a NULL column is instant.
 * - `mail_messages`: every inbound message once, by its `Message-ID` (unique; a hash of the message stands in for a
 *   missing one), recorded in the transaction of the ticket or comment it made, or with the reason it was ignored.
 *   Threading finds tickets by it; the sender limit counts it by (sender, received_at).
 * - `mail_threads`: the `Message-ID` a ticket's mails are chained to (the mail that opened it, or one made up for a
 *   ticket opened otherwise), so every notification of a ticket threads in the recipient's mail client.
 * - `mail_notifications`: each mail to send, rendered once (so a retried send is the same message), one per change
 *   and recipient (unique), worked under a claim (owner, epoch, expiry) like webhook deliveries.
 * - `mail_notifier`: the notifier's cursor in the change log (one row), and when it last moved, so that retention
 *   waits for a notifier that is running and not for one switched off.
 * - `mailbox_leases`: which replica reads an IMAP mailbox, with an epoch that fences what it records.
 */
export class EmailChannel1763900025000 implements MigrationInterface {
  name = 'EmailChannel1763900025000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE change_log ADD COLUMN context varchar(1000) NULL');
    await queryRunner.query(`
      CREATE TABLE mail_messages (
        id bigint NOT NULL AUTO_INCREMENT,
        message_id varchar(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        sender varchar(320) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
        outcome enum('created', 'commented', 'ignored') NOT NULL,
        reason varchar(500) NULL,
        ticket_id bigint NULL,
        comment_id bigint NULL,
        received_at datetime(3) NOT NULL,
        PRIMARY KEY (id),
        UNIQUE INDEX uq_mail_messages_message_id (message_id),
        INDEX idx_mail_messages_sender (sender, received_at),
        INDEX idx_mail_messages_ticket (ticket_id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      CREATE TABLE mail_threads (
        ticket_id bigint NOT NULL,
        root_message_id varchar(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        PRIMARY KEY (ticket_id),
        INDEX idx_mail_threads_root (root_message_id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      CREATE TABLE mail_notifications (
        id bigint NOT NULL AUTO_INCREMENT,
        event_id char(36) NOT NULL,
        event_type varchar(32) NOT NULL,
        ticket_id bigint NOT NULL,
        recipient varchar(320) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
        message_id varchar(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        message mediumtext NOT NULL,
        status enum('pending', 'sent', 'failed') NOT NULL DEFAULT 'pending',
        attempts int NOT NULL DEFAULT 0,
        last_answer varchar(500) NULL,
        created_at datetime(3) NOT NULL,
        next_attempt_at datetime(3) NOT NULL,
        finished_at datetime(3) NULL,
        owner varchar(64) NULL,
        epoch int NOT NULL DEFAULT 0,
        claim_expires_at datetime(3) NULL,
        PRIMARY KEY (id),
        UNIQUE INDEX uq_mail_notifications_event_recipient (event_id, recipient),
        UNIQUE INDEX uq_mail_notifications_message_id (message_id),
        INDEX idx_mail_notifications_due (status, next_attempt_at),
        INDEX idx_mail_notifications_ticket (ticket_id, id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      CREATE TABLE mail_notifier (
        id tinyint NOT NULL,
        notified_through bigint NOT NULL,
        moved_at datetime(3) NOT NULL,
        PRIMARY KEY (id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      CREATE TABLE mailbox_leases (
        mailbox varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
        owner varchar(64) NULL,
        epoch int NOT NULL DEFAULT 0,
        expires_at datetime(3) NOT NULL,
        PRIMARY KEY (mailbox)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['mailbox_leases', 'mail_notifier', 'mail_notifications', 'mail_threads', 'mail_messages']) {
      await queryRunner.query(`DROP TABLE ${table}`);
    }
    await queryRunner.query('ALTER TABLE change_log DROP COLUMN context');
  }
}
