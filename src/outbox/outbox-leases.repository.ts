import { Injectable } from '@nestjs/common';
import type { Queryable } from '../database/statement-batch.js';

/** One partition's lease as the table holds it. */
export interface LeaseRow {
  partition: number;
  owner: string | null;
  epoch: number;
  expired: boolean;
}

interface WriteResult {
  affectedRows: number;
}

const FENCE = 'UPDATE outbox_lease SET expires_at = NOW(3) + INTERVAL ? MICROSECOND WHERE partition_no = ? AND owner = ? AND epoch = ?';

/**
 * `outbox_lease` (a row per partition: owner, epoch, expiry) and `outbox_relay` (a heartbeat row per live relay), on
 * the connection of the relay's pass (`runner`). Every write of a lease row names one row by its primary key: a
 * statement that scans (the optimizer scans a table this small for an IN list) locks every row it reads, and on
 * Galera a replicated write to any of those rows then aborts the scanning transaction, a fence among them. Times
 * are the database's (NOW(3)), so relays on different hosts agree on expiry; TTLs go in as microseconds.
 */
@Injectable()
export class OutboxLeasesRepository {
  /** Creates the lease rows of partitions 0 to `partitions` - 1 that do not exist yet. */
  async ensurePartitions(runner: Queryable, partitions: number): Promise<void> {
    const values = Array.from({ length: partitions }, (_, partition) => `(${partition}, NOW(3))`).join(', ');
    await runner.query(`INSERT IGNORE INTO outbox_lease (partition_no, expires_at) VALUES ${values}`);
  }

  /**
   * Begins a transaction and renews each lease on the condition that owner and its epoch are still `owner`'s, in one
   * round trip: for each, whether it held (its row is then locked until the transaction ends).
   */
  async beginFenced(
    runner: Queryable,
    owner: string,
    leases: ReadonlyArray<{ partition: number; epoch: number }>,
    ttlMs: number,
  ): Promise<boolean[]> {
    const results = (await runner.query(
      ['START TRANSACTION', ...leases.map(() => FENCE)].join(';\n'),
      leases.flatMap(({ partition, epoch }) => [ttlMs * 1000, partition, owner, epoch]),
    )) as WriteResult[];
    return results.slice(1).map((result) => result.affectedRows === 1);
  }

  /** Frees the lease while it is `owner`'s, expiring at once. */
  async release(runner: Queryable, partition: number, owner: string): Promise<void> {
    await runner.query('UPDATE outbox_lease SET owner = NULL, expires_at = NOW(3) WHERE partition_no = ? AND owner = ?', [
      partition,
      owner,
    ]);
  }

  /** Extends the lease while it is `owner`'s. */
  async renew(runner: Queryable, partition: number, owner: string, ttlMs: number): Promise<void> {
    await runner.query('UPDATE outbox_lease SET expires_at = NOW(3) + INTERVAL ? MICROSECOND WHERE partition_no = ? AND owner = ?', [
      ttlMs * 1000,
      partition,
      owner,
    ]);
  }

  /**
   * Claims the lease when it is free, expired or already `owner`'s; the epoch goes up when the owner changes. The
   * outcome is read by claimed().
   */
  async claim(runner: Queryable, partition: number, owner: string, ttlMs: number): Promise<void> {
    // Epoch first: MySQL evaluates the assignments of an UPDATE from left to right.
    await runner.query(
      `UPDATE outbox_lease SET epoch = IF(owner <=> ?, epoch, epoch + 1), owner = ?, expires_at = NOW(3) + INTERVAL ? MICROSECOND
           WHERE partition_no = ? AND (owner IS NULL OR owner = ? OR expires_at < NOW(3))`,
      [owner, owner, ttlMs * 1000, partition, owner],
    );
  }

  /** Which of `partitions` are `owner`'s, with their epochs. */
  async claimed(runner: Queryable, owner: string, partitions: number[]): Promise<Array<{ partition: number; epoch: number }>> {
    const rows = (await runner.query('SELECT partition_no, epoch FROM outbox_lease WHERE owner = ? AND partition_no IN (?)', [
      owner,
      partitions,
    ])) as Array<{
      partition_no: number;
      epoch: string;
    }>;
    return rows.map((row) => ({ partition: Number(row.partition_no), epoch: Number(row.epoch) }));
  }

  /** Every lease in partition order, and how many relays are alive. */
  async read(runner: Queryable): Promise<{ rows: LeaseRow[]; members: number }> {
    const result = (await runner.query(
      `SELECT partition_no, owner, epoch, expires_at < NOW(3) AS expired,
              (SELECT COUNT(*) FROM outbox_relay WHERE expires_at > NOW(3)) AS members
       FROM outbox_lease ORDER BY partition_no`,
    )) as Array<{ partition_no: number; owner: string | null; epoch: string; expired: number; members: string }>;
    const rows = result.map((row) => ({
      partition: Number(row.partition_no),
      owner: row.owner,
      epoch: Number(row.epoch),
      expired: Number(row.expired) === 1,
    }));
    return { rows, members: Number(result[0]?.members ?? 1) };
  }

  /** Says `owner` is alive for another `ttlMs`. */
  async heartbeat(runner: Queryable, owner: string, ttlMs: number): Promise<void> {
    await runner.query(
      `INSERT INTO outbox_relay (owner, expires_at) VALUES (?, NOW(3) + INTERVAL ? MICROSECOND)
       ON DUPLICATE KEY UPDATE expires_at = VALUES(expires_at)`,
      [owner, ttlMs * 1000],
    );
  }

  /** Removes the heartbeat rows of relays that stopped without leaving over an hour ago. */
  async deleteStaleRelays(runner: Queryable): Promise<void> {
    await runner.query('DELETE FROM outbox_relay WHERE expires_at < NOW(3) - INTERVAL 1 HOUR');
  }

  /** Removes `owner`'s heartbeat row. */
  async deleteRelay(runner: Queryable, owner: string): Promise<void> {
    await runner.query('DELETE FROM outbox_relay WHERE owner = ?', [owner]);
  }
}
