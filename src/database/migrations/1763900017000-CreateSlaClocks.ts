import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SLA clocks (docs/sla.md). One row per (ticket, metric, cycle); the two due columns are the detector's to-do, each
 * indexed so the poll reads only what is due. One row per event sent, its primary key (ticket, metric, cycle, kind)
 * making each event happen once, written in the transaction of its outbox row.
 *
 * The ticket row carries what the list queries need, each indexed: the next breach time of its running clocks and
 * whether a clock of it ever breached. A ticket with no running clock is due at the end of time rather than NULL:
 * ascending, MariaDB sorts NULL first, and a sentinel keeps `sort=slaDueAt` (such tickets last) a plain index read
 * with plain keyset cursors. Both columns are added with constant defaults, which MariaDB does in place.
 */
export class CreateSlaClocks1763900017000 implements MigrationInterface {
  name = 'CreateSlaClocks1763900017000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ticket_sla_clocks (
        ticket_id bigint NOT NULL,
        metric enum('firstResponse','resolution') NOT NULL,
        cycle int NOT NULL,
        calendar varchar(64) NOT NULL,
        goal varchar(32) NOT NULL,
        goal_ms bigint NOT NULL,
        started_at datetime(3) NOT NULL,
        stopped_at datetime(3) NULL,
        elapsed_ms bigint NOT NULL,
        running_since datetime(3) NULL,
        breach_at datetime(3) NULL,
        warning_due_at datetime(3) NULL,
        breach_due_at datetime(3) NULL,
        PRIMARY KEY (ticket_id, metric, cycle),
        INDEX idx_sla_clocks_warning_due (warning_due_at),
        INDEX idx_sla_clocks_breach_due (breach_due_at),
        INDEX idx_sla_clocks_running (metric, running_since),
        CONSTRAINT fk_sla_clocks_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id) ON DELETE CASCADE
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      CREATE TABLE ticket_sla_events (
        ticket_id bigint NOT NULL,
        metric enum('firstResponse','resolution') NOT NULL,
        cycle int NOT NULL,
        kind enum('WARNING','BREACHED') NOT NULL,
        due_at datetime(3) NOT NULL,
        recorded_at datetime(3) NOT NULL,
        PRIMARY KEY (ticket_id, metric, cycle, kind),
        CONSTRAINT fk_sla_events_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id) ON DELETE CASCADE
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      ALTER TABLE tickets
        ADD COLUMN sla_due_at datetime(3) NOT NULL DEFAULT '9999-12-31 23:59:59.999',
        ADD COLUMN sla_breached tinyint(1) NOT NULL DEFAULT 0,
        ADD INDEX idx_tickets_sla_due (sla_due_at),
        ADD INDEX idx_tickets_sla_breached (sla_breached, sla_due_at),
        ADD INDEX idx_tickets_sla_breached_id (sla_breached),
        ADD INDEX idx_tickets_status_sla_due (status, sla_due_at),
        ADD INDEX idx_tickets_assignee_sla_due (assigned_to, sla_due_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE tickets DROP INDEX idx_tickets_assignee_sla_due, DROP INDEX idx_tickets_status_sla_due, DROP INDEX idx_tickets_sla_breached_id, ' +
        'DROP INDEX idx_tickets_sla_breached, DROP INDEX idx_tickets_sla_due, DROP COLUMN sla_breached, DROP COLUMN sla_due_at',
    );
    await queryRunner.query('DROP TABLE ticket_sla_events');
    await queryRunner.query('DROP TABLE ticket_sla_clocks');
  }
}
