import { Injectable } from '@nestjs/common';
import type { Queryable } from '../database/statement-batch.js';
import type { FeedState } from './change-feed.repository.js';

interface WriteResult {
  affectedRows: number;
}

/**
 * `change_feed_sequencer`: one row, the lease of the one replica that numbers changes (owner, epoch, expiry) and the
 * numbering's state. Every statement names the row by its primary key; times are the database's (NOW(3)), so
 * replicas on different hosts agree on expiry; TTLs go in as microseconds. As the outbox's leases, nothing here
 * rests on a node-local feature (decision 29).
 */
@Injectable()
export class ChangeSequencerRepository {
  /**
   * Claims the lease when it is free, expired or already `owner`'s (the epoch goes up when the owner changes),
   * and answers the epoch it holds, or null when another replica holds it.
   */
  async claim(runner: Queryable, owner: string, ttlMs: number): Promise<number | null> {
    // Epoch first: MySQL evaluates the assignments of an UPDATE from left to right.
    await runner.query(
      `UPDATE change_feed_sequencer SET epoch = IF(owner <=> ?, epoch, epoch + 1), owner = ?, expires_at = NOW(3) + INTERVAL ? MICROSECOND
       WHERE id = 1 AND (owner IS NULL OR owner = ? OR expires_at < NOW(3))`,
      [owner, owner, ttlMs * 1000, owner],
    );
    const [row] = (await runner.query('SELECT owner, epoch FROM change_feed_sequencer WHERE id = 1')) as Array<{
      owner: string | null;
      epoch: string;
    }>;
    return row?.owner === owner ? Number(row.epoch) : null;
  }

  /**
   * Begins a transaction, renews the lease on the condition that owner and epoch are still these, and reads the
   * state, in one round trip: the state (the row is locked from here to the end of the transaction), or null when
   * the lease was lost.
   */
  async beginFenced(runner: Queryable, owner: string, epoch: number, ttlMs: number): Promise<FeedState | null> {
    const [, fence, rows] = (await runner.query(
      [
        'START TRANSACTION',
        'UPDATE change_feed_sequencer SET expires_at = NOW(3) + INTERVAL ? MICROSECOND WHERE id = 1 AND owner = ? AND epoch = ?',
        'SELECT last_seq, pruned_through FROM change_feed_sequencer WHERE id = 1',
      ].join(';\n'),
      [ttlMs * 1000, owner, epoch],
    )) as [unknown, WriteResult, Array<{ last_seq: string; pruned_through: string }>];
    if (fence.affectedRows !== 1) return null;
    const [row] = rows;
    return { lastSeq: Number(row.last_seq), prunedThrough: Number(row.pruned_through) };
  }

  /** Moves the high mark, and the stamp of this numbering: the database's clock, but never below the stamp before. */
  async setLastSeq(runner: Queryable, lastSeq: number): Promise<void> {
    await runner.query(
      'UPDATE change_feed_sequencer SET last_seq = ?, last_sequenced_at = GREATEST(NOW(3), COALESCE(last_sequenced_at, NOW(3))) WHERE id = 1',
      [lastSeq],
    );
  }

  async setPrunedThrough(runner: Queryable, prunedThrough: number): Promise<void> {
    await runner.query('UPDATE change_feed_sequencer SET pruned_through = ? WHERE id = 1', [prunedThrough]);
  }

  /** Frees the lease while it is `owner`'s, expiring at once, so another replica takes over without waiting. */
  async release(runner: Queryable, owner: string): Promise<void> {
    await runner.query('UPDATE change_feed_sequencer SET owner = NULL, expires_at = NOW(3) WHERE id = 1 AND owner = ?', [owner]);
  }
}
