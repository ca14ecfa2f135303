import { randomBytes } from 'node:crypto';
import { isLostRace } from '../database/connection-errors.js';
import { Logger } from '@nestjs/common';
import type { QueryRunner } from 'typeorm';
import { type Queryable, StatementBatch } from '../database/statement-batch.js';
import type { LeaseRow, OutboxLeasesRepository } from './outbox-leases.repository.js';
import { workerOwner } from '../database/worker-owner.js';

export type { LeaseRow };

/** What a relay should do about leases: give some up, try to claim others. */
export interface LeasePlan {
  release: number[];
  claim: number[];
}

/**
 * Fair shares: with `members` live relays, each holds at most ceil(partitions / members). A relay above its
 * share gives up its highest partitions; one below it claims free or expired ones, starting from `offset`, so that
 * relays starting together try different partitions first.
 */
export function planLeases(rows: LeaseRow[], me: string, members: number, offset = 0): LeasePlan {
  const share = Math.ceil(rows.length / Math.max(1, members));
  // A lease of mine that expired without anyone taking it over is still mine: renewing it keeps its epoch.
  const mine = rows
    .filter((row) => row.owner === me)
    .map((row) => row.partition)
    .sort((a, b) => a - b);
  if (mine.length > share) return { release: mine.slice(share), claim: [] };
  const free = rows.filter((row) => row.owner !== me && (row.owner === null || row.expired)).map((row) => row.partition);
  const rotated = [...free].sort((a, b) => rotate(a, offset, rows.length) - rotate(b, offset, rows.length));
  return { release: [], claim: rotated.slice(0, share - mine.length) };
}

function rotate(partition: number, offset: number, count: number): number {
  return (partition - offset + count) % count;
}

interface Held {
  epoch: number;
  /** Local time until which this relay may publish for the partition (its lease, less a safety margin). */
  validUntil: number;
}

/** How often the fenced marks are tried when their commit loses a race (see fenced). */
const FENCED_ATTEMPTS = 3;

/**
 * The relay's leases on outbox partitions, as rows of `outbox_lease` claimed by committed conditional UPDATEs and
 * `outbox_relay` rows that say which relays are alive. Nothing here rests on a node-local feature (GET_LOCK,
 * SKIP LOCKED, session state), so it holds on Galera, Group Replication and after a failover alike.
 *
 * Fencing: every mark of published events runs in a transaction that first updates the lease row on the
 * condition that owner and epoch are still this relay's. A relay that lost its lease (paused, partitioned,
 * slow) marks nothing; on a multi-primary cluster a concurrent takeover makes one of the two commits fail.
 * The statements are OutboxLeasesRepository's, run on the connection of the relay's pass (`runner`).
 */
export class OutboxLeases {
  private readonly logger = new Logger('OutboxLeases');
  readonly owner = workerOwner();
  private readonly held = new Map<number, Held>();
  private readonly offset: number;
  private heartbeatDueAt = 0;
  private renewDueAt = 0;

  constructor(
    private readonly leases: OutboxLeasesRepository,
    private readonly partitions: number,
    private readonly ttlMs: number,
  ) {
    this.offset = randomBytes(2).readUInt16BE() % partitions;
  }

  /** Partitions this relay may publish for now. */
  publishable(now = Date.now()): Map<number, number> {
    const partitions = new Map<number, number>();
    for (const [partition, lease] of this.held) if (now < lease.validUntil) partitions.set(partition, lease.epoch);
    return partitions;
  }

  heldPartitions(): number[] {
    return [...this.publishable().keys()].sort((a, b) => a - b);
  }

  /** Creates the lease rows of the configured partitions; rows of a larger earlier count stay and are served too. */
  async ensurePartitions(runner: QueryRunner): Promise<void> {
    await this.leases.ensurePartitions(runner, this.partitions);
  }

  /**
   * Says this relay is alive, renews its leases when due, and gives up or claims partitions towards its fair
   * share. Cheap when nothing is due: one read of the lease table.
   */
  async refresh(runner: QueryRunner): Promise<void> {
    const now = Date.now();
    if (now >= this.heartbeatDueAt) await this.heartbeat(runner, now);
    if (this.held.size > 0 && now >= this.renewDueAt) await this.renew(runner, now);
    const { rows, members } = await this.leases.read(runner);
    this.forgetLost(rows);
    const plan = planLeases(rows, this.owner, members, this.offset);
    if (plan.release.length > 0) await this.release(runner, plan.release);
    // A lease the table still gives this relay but that it no longer counts as held (a fence that lost a race
    // while nobody took the partition over) is taken up again, or nobody would ever publish that partition.
    const unheld = rows.filter((row) => row.owner === this.owner && !this.held.has(row.partition) && !plan.release.includes(row.partition));
    const claim = [...plan.claim, ...unheld.map((row) => row.partition)];
    if (claim.length > 0) await this.claim(runner, claim);
  }

  /**
   * Runs `work` (the marks of published events) in one transaction with the fence: it commits only for the
   * partitions whose lease this relay still holds with the same epoch, and returns those. Two round trips:
   * START TRANSACTION with the fences, then `work`'s statements with COMMIT (the server stops at the first statement
   * it refuses, so COMMIT runs only after all of them).
   */
  async fenced(runner: QueryRunner, partitions: number[], work: (kept: number[], later: Queryable) => Promise<void>): Promise<number[]> {
    const started = Date.now();
    const leases = partitions.flatMap((partition) => {
      const lease = this.held.get(partition);
      return lease ? [{ partition, epoch: lease.epoch }] : [];
    });
    for (let attempt = 1; ; attempt++) {
      try {
        let kept: number[] = [];
        if (leases.length > 0) {
          const held = await this.leases.beginFenced(runner, this.owner, leases, this.ttlMs);
          kept = leases.filter((_, i) => held[i]).map(({ partition }) => partition);
          const later = new StatementBatch();
          if (kept.length > 0) await work(kept, later);
          await later.run(runner, 'COMMIT');
        }
        for (const partition of kept) this.extend(partition, started);
        this.lose(partitions.filter((partition) => !kept.includes(partition)));
        return kept;
      } catch (error) {
        await runner.query('ROLLBACK').catch(() => undefined);
        if (!isLostRace(error)) throw error;
        // On a multi-primary cluster the commit loses certification to any write of the same rows on another node:
        // the sequencer numbering these changes there, as often as another relay taking a partition over. None of
        // the marks happened, and the fence, read again, tells which: marked again while it still holds the lease,
        // rather than given up and published twice.
        if (attempt < FENCED_ATTEMPTS) continue;
        this.logger.warn(`Marking published events of partition(s) ${partitions.join(', ')} lost a race: ${(error as Error).message}`);
        this.lose(partitions);
        return [];
      }
    }
  }

  /** Gives every lease back and leaves the relay table, so other relays take over at once. */
  async releaseAll(runner: QueryRunner): Promise<void> {
    for (const partition of this.held.keys()) {
      await this.leases.release(runner, partition, this.owner);
    }
    await this.leases.deleteRelay(runner, this.owner);
    this.held.clear();
  }

  private async heartbeat(runner: QueryRunner, now: number): Promise<void> {
    await this.leases.heartbeat(runner, this.owner, this.ttlMs);
    this.heartbeatDueAt = now + this.ttlMs / 3;
    // Relays that stopped without leaving; any relay may remove them, and losing that race changes nothing.
    await this.leases.deleteStaleRelays(runner).catch(ignoreLostRace);
  }

  private async renew(runner: QueryRunner, now: number): Promise<void> {
    const partitions = [...this.held.keys()];
    for (const partition of partitions) {
      await this.leases.renew(runner, partition, this.owner, this.ttlMs).catch(ignoreLostRace);
    }
    // The read that follows drops any lease that was not renewed because someone else holds it now.
    for (const partition of partitions) this.extend(partition, now);
  }

  /** Drops what the table says is no longer this relay's (taken over), and adopts a renewed epoch change. */
  private forgetLost(rows: LeaseRow[]): void {
    const lost = [...this.held.keys()].filter((partition) => {
      const row = rows.find((candidate) => candidate.partition === partition);
      return row?.owner !== this.owner || row.epoch !== this.held.get(partition)!.epoch;
    });
    this.lose(lost);
  }

  private async release(runner: QueryRunner, partitions: number[]): Promise<void> {
    for (const partition of partitions) {
      await this.leases.release(runner, partition, this.owner).catch(ignoreLostRace);
      this.held.delete(partition);
    }
    this.logger.log(`Released outbox partition(s) ${partitions.join(', ')} for another relay; holding ${this.describeHeld()}`);
  }

  private async claim(runner: QueryRunner, partitions: number[]): Promise<void> {
    const started = Date.now();
    for (const partition of partitions) {
      await this.leases.claim(runner, partition, this.owner, this.ttlMs).catch(ignoreLostRace);
    }
    const claimed = await this.leases.claimed(runner, this.owner, partitions);
    if (claimed.length === 0) return;
    for (const row of claimed) this.held.set(row.partition, { epoch: row.epoch, validUntil: 0 });
    for (const row of claimed) this.extend(row.partition, started);
    this.renewDueAt = Math.min(this.renewDueAt || Infinity, started + this.ttlMs / 3);
    this.logger.log(
      `Claimed outbox partition(s) ${claimed.map((row) => `${row.partition} (epoch ${row.epoch})`).join(', ')}; holding ${this.describeHeld()}`,
    );
  }

  /** A lease renewed by a statement sent at `since` lasts, on this clock, until since + TTL; keep a margin. */
  private extend(partition: number, since: number): void {
    const lease = this.held.get(partition);
    if (!lease) return;
    lease.validUntil = since + this.ttlMs - Math.min(1_000, this.ttlMs / 5);
    this.renewDueAt = since + this.ttlMs / 3;
  }

  private lose(partitions: number[]): void {
    const lost = partitions.filter((partition) => this.held.delete(partition));
    if (lost.length > 0)
      this.logger.warn(`Lost the lease of outbox partition(s) ${lost.join(', ')} to another relay; holding ${this.describeHeld()}`);
  }

  private describeHeld(): string {
    const held = [...this.held.keys()].sort((a, b) => a - b);
    return held.length > 0 ? held.join(', ') : 'none';
  }
}

function ignoreLostRace(error: unknown): void {
  if (!isLostRace(error)) throw error;
}
