import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Jobs (docs/api.md#bulk-changes): work on many tickets, done in the background under a lease (decision 29).
 *
 * - `jobs`: one row per job: its kind, what it was asked (`request`, JSON), its state and counts, and the lease of the
 *   replica working it (`lease_owner`, `lease_epoch`, `lease_until`; the epoch fences what a replica records once
 *   another has taken the job over). (status, id) finds the work; (finished_at) the jobs past their retention.
 * - `job_items`: the tickets of a job, numbered in the order they are worked (`position`), each with its outcome once
 *   worked, recorded in the same transaction as the ticket's change, so a job taken over never changes a ticket twice;
 *   `stage` says how far a ticket came when its change and its comment are two transactions, `attempts` how often a
 *   change failed for a reason of the service's own (the database away), which is tried again a few times.
 *   (job_id, outcome, position) finds the next tickets to work without passing over those done.
 * - A job's `error` says why it failed as a whole (its filter refused when it started).
 */
export class Jobs1763900031000 implements MigrationInterface {
  name = 'Jobs1763900031000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE jobs (
        id bigint NOT NULL AUTO_INCREMENT,
        kind varchar(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        status varchar(24) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        request longtext NOT NULL,
        created_by varchar(255) NULL,
        total int NULL,
        done int NOT NULL DEFAULT 0,
        failed int NOT NULL DEFAULT 0,
        cancel_requested tinyint NOT NULL DEFAULT 0,
        error text NULL,
        lease_owner varchar(64) NULL,
        lease_epoch bigint NOT NULL DEFAULT 0,
        lease_until datetime(3) NULL,
        created_at datetime(3) NOT NULL,
        started_at datetime(3) NULL,
        finished_at datetime(3) NULL,
        PRIMARY KEY (id),
        INDEX idx_jobs_status (status, id),
        INDEX idx_jobs_finished (finished_at)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await queryRunner.query(`
      CREATE TABLE job_items (
        job_id bigint NOT NULL,
        position int NOT NULL,
        ticket_id bigint NOT NULL,
        stage varchar(16) CHARACTER SET ascii COLLATE ascii_bin NULL,
        outcome varchar(16) CHARACTER SET ascii COLLATE ascii_bin NULL,
        error text NULL,
        attempts int NOT NULL DEFAULT 0,
        finished_at datetime(3) NULL,
        PRIMARY KEY (job_id, position),
        INDEX idx_job_items_pending (job_id, outcome, position),
        CONSTRAINT fk_job_items_job FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE job_items');
    await queryRunner.query('DROP TABLE jobs');
  }
}
