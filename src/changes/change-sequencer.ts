import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { QueryRunner } from 'typeorm';
import { Database } from '../database/database.js';
import { isLostRace } from '../database/connection-errors.js';
import { PeriodicWorker } from '../database/periodic-worker.js';
import { StatementBatch } from '../database/statement-batch.js';
import type { AppConfig } from '../config/app-config.js';
import type { ChangesConfig } from '../config/changes-config.js';
import { ChangeFeedRepository, type FeedState } from './change-feed.repository.js';
import { ChangeNotifier } from './change-notifier.js';
import { ChangeSequencerRepository } from './change-sequencer.repository.js';
import { expiredPrefix } from './change-retention.js';
import { workerOwner } from '../database/worker-owner.js';

/** Changes numbered per transaction; a larger backlog takes several, back to back. */
const BATCH_SIZE = 1000;
const PRUNE_INTERVAL_MS = 60_000;
const PRUNE_BATCH_SIZE = 1000;
/**
 * Numbers committed changes, so that a reader following seq never has a change appear behind its cursor.
 *
 * Auto-increment ids are handed out at insert, not at commit: a reader ordering by id could pass an id whose
 * transaction commits a moment later, and never see it. So writes insert their change without a number (seq
 * NULL), and one sequencer, the replica holding the lease row, gives the committed ones the next numbers in id
 * order, in one transaction fenced by the lease's epoch. What commits later gets a higher number than anything
 * numbered before; a ticket's changes commit in id order (its row lock serialises its writes), so id order keeps
 * them in commit order. Readers only see numbered changes.
 *
 * The owner also deletes changes past CHANGES_RETENTION_DAYS, oldest first, and records how far it deleted, so a
 * reader whose cursor is before that gets 410 rather than a silent gap.
 */
@Injectable()
export class ChangeSequencer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ChangeSequencer.name);
  readonly owner = workerOwner();
  private readonly settings: ChangesConfig;
  private epoch: number | null = null;
  private claimDueAt = 0;
  private renewDueAt = 0;
  private pruneDueAt = 0;
  private stopped = false;
  private failing = false;
  private readonly worker: PeriodicWorker;

  constructor(
    private readonly database: Database,
    private readonly feed: ChangeFeedRepository,
    private readonly leases: ChangeSequencerRepository,
    private readonly notifier: ChangeNotifier,
    config: ConfigService<AppConfig, true>,
  ) {
    this.settings = config.get('changes', { infer: true });
    this.worker = new PeriodicWorker({ name: ChangeSequencer.name, intervalMs: this.settings.sequenceIntervalMs, pass: () => this.pass() });
  }

  onApplicationBootstrap(): void {
    this.worker.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.worker.stop();
    if (this.epoch === null) return;
    // Another replica takes over at once instead of after the TTL; if the database is gone, the lease expires.
    await this.database.withWorkerConnection((runner) => this.leases.release(runner, this.owner)).catch(() => undefined);
  }

  /** Whether this replica numbers changes now. */
  isSequencer(): boolean {
    return this.epoch !== null;
  }

  /** Runs a pass now, or once more after the one in progress. Never throws. */
  kick(): void {
    this.worker.wake();
  }

  /**
   * Changes were committed here: numbers them now when this replica is the sequencer and a reader of it waits for
   * them (a long-poll, a stream, a webhook endpoint); otherwise the next timed pass (CHANGES_SEQUENCE_INTERVAL_MS)
   * does, and a write load without such readers costs no pass per commit.
   */
  committed(): void {
    if (this.epoch !== null && this.notifier.awaited) this.worker.wake();
  }

  /** Deletes the changes past retention now (the owner does it every minute); false when this replica is not the owner. */
  async prune(): Promise<boolean> {
    await this.worker.idle();
    return this.database.withWorkerConnection((runner) => this.pruneAll(runner));
  }

  private async pass(): Promise<void> {
    try {
      await this.database.withWorkerConnection(async (runner) => {
        const now = Date.now();
        if (now >= this.claimDueAt) await this.claim(runner, now);
        if (this.epoch === null) return;
        if (now >= this.renewDueAt || (await this.feed.anyUnsequenced(runner))) {
          while (!this.stopped && (await this.sequenceBatch(runner)));
        }
        // One batch per pass, so a large backlog of expired changes never holds up numbering; the next pass goes on.
        if (this.epoch !== null && now >= this.pruneDueAt) {
          const more = await this.pruneBatch(runner);
          this.pruneDueAt = more ? now : now + PRUNE_INTERVAL_MS;
        }
      });
      if (this.failing) this.logger.log('Numbering changes again');
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.logger.warn(`Numbering changes failed: ${(error as Error).message}; retrying`);
      this.failing = true;
    }
  }

  private async claim(runner: QueryRunner, now: number): Promise<void> {
    const epoch = await this.leases.claim(runner, this.owner, this.settings.leaseTtlMs);
    if (epoch !== this.epoch) {
      if (epoch !== null) this.logger.log(`Numbering changes (sequencer lease, epoch ${epoch})`);
      else if (this.epoch !== null) this.logger.warn('Lost the sequencer lease to another replica');
    }
    this.epoch = epoch;
    this.claimDueAt = now + this.settings.leaseTtlMs / 3;
    this.renewDueAt = this.claimDueAt;
  }

  /** Numbers the oldest unnumbered committed changes; true when a full batch went, so more may wait. */
  private async sequenceBatch(runner: QueryRunner): Promise<boolean> {
    let numbered = 0;
    const state = await this.fenced(runner, async (state, later) => {
      const ids = await this.feed.unsequenced(runner, BATCH_SIZE);
      if (ids.length === 0) return state;
      await this.leases.setLastSeq(later, state.lastSeq + ids.length);
      await this.feed.assign(later, ids, state.lastSeq + 1);
      numbered = ids.length;
      return { ...state, lastSeq: state.lastSeq + ids.length };
    });
    this.renewDueAt = Date.now() + this.settings.leaseTtlMs / 3;
    if (state) this.notifier.advance(state.lastSeq);
    return state !== null && numbered === BATCH_SIZE;
  }

  /** Deletes every change past retention, a batch per transaction, oldest first, while the lease holds. */
  private async pruneAll(runner: QueryRunner): Promise<boolean> {
    if (this.epoch === null) return false;
    for (let more = true; more && !this.stopped;) {
      more = await this.pruneBatch(runner);
      if (this.epoch === null) return false;
    }
    return true;
  }

  /** Deletes the oldest batch of changes past retention in one fenced transaction; true when a full batch went, so more may wait. */
  private async pruneBatch(runner: QueryRunner): Promise<boolean> {
    const retentionMs = this.settings.retentionDays * 86_400_000;
    let more = false;
    const state = await this.fenced(runner, async (state, later) => {
      const through = expiredPrefix(await this.feed.oldest(runner, state.prunedThrough, PRUNE_BATCH_SIZE, retentionMs));
      if (through === null) return state;
      await this.feed.deleteRange(later, state.prunedThrough, through.seq);
      await this.leases.setPrunedThrough(later, through.seq);
      more = through.count === PRUNE_BATCH_SIZE;
      return { ...state, prunedThrough: through.seq };
    });
    return state !== null && more;
  }

  /**
   * Runs `work` in one transaction that first renews the lease on the condition that owner and epoch are still
   * this replica's: a replica that lost the lease (paused, cut off, slow) changes nothing. `work` reads on the
   * runner and adds its writes to `later`, which go to the database with COMMIT: with the fence, three round trips
   * for a batch (the fence and the state, the reads, the writes and COMMIT), the outbox relay's pattern. Answers what
   * `work` answered, or null (and gives the lease up locally) when the lease was lost.
   */
  private async fenced(
    runner: QueryRunner,
    work: (state: FeedState, later: StatementBatch) => Promise<FeedState>,
  ): Promise<FeedState | null> {
    const epoch = this.epoch;
    if (epoch === null) return null;
    try {
      const state = await this.leases.beginFenced(runner, this.owner, epoch, this.settings.leaseTtlMs);
      if (!state) {
        this.lose();
        await runner.query('ROLLBACK');
        return null;
      }
      const later = new StatementBatch();
      const result = await work(state, later);
      await later.run(runner, 'COMMIT');
      return result;
    } catch (error) {
      await runner.query('ROLLBACK').catch(() => undefined);
      if (!isLostRace(error)) throw error;
      this.logger.warn(`Numbering changes lost a race for the sequencer lease: ${(error as Error).message}`);
      this.lose();
      return null;
    }
  }

  private lose(): void {
    if (this.epoch !== null) this.logger.warn('Lost the sequencer lease to another replica');
    this.epoch = null;
    this.claimDueAt = 0;
  }
}
