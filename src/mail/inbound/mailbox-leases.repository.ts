import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database.js';
import type { Queryable } from '../../database/statement-batch.js';

interface WriteResult {
  affectedRows: number;
}

/** A transaction's lease check failed: another replica reads the mailbox now; what it was to record is not. */
export class MailboxLeaseLost extends Error {
  constructor(mailbox: string) {
    super(`The lease of ${mailbox} went to another replica`);
  }
}

/**
 * `mailbox_leases`: one row per mailbox, claimed by a committed conditional update (owner, epoch, expiry; decision 29),
 * so that one replica at a time reads a mailbox. What a reader records is fenced by its epoch in the same transaction.
 * Times are the database's, so replicas on different hosts agree on expiry.
 */
@Injectable()
export class MailboxLeasesRepository {
  constructor(private readonly database: Database) {}

  /** Claims the lease when it is free, expired or `owner`'s already; answers its epoch when `owner` holds it. */
  async claim(mailbox: string, owner: string, ttlMs: number): Promise<number | undefined> {
    await this.database.query('INSERT IGNORE INTO mailbox_leases (mailbox, expires_at) VALUES (?, NOW(3))', [mailbox]);
    // Epoch first: the assignments of an UPDATE are evaluated from left to right.
    await this.database.query(
      `UPDATE mailbox_leases SET epoch = IF(owner <=> ?, epoch, epoch + 1), owner = ?, expires_at = NOW(3) + INTERVAL ? MICROSECOND
       WHERE mailbox = ? AND (owner IS NULL OR owner = ? OR expires_at < NOW(3))`,
      [owner, owner, ttlMs * 1000, mailbox, owner],
    );
    const [row] = await this.database.rows<{ owner: string | null; epoch: number }>(
      'SELECT owner, epoch FROM mailbox_leases WHERE mailbox = ?',
      [mailbox],
    );
    return row?.owner === owner ? Number(row.epoch) : undefined;
  }

  /** In the caller's transaction: renews the lease while it is still `owner`'s at `epoch`, or throws MailboxLeaseLost. */
  async fence(db: Queryable, mailbox: string, owner: string, epoch: number, ttlMs: number): Promise<void> {
    const result = (await db.query(
      'UPDATE mailbox_leases SET expires_at = NOW(3) + INTERVAL ? MICROSECOND WHERE mailbox = ? AND owner = ? AND epoch = ?',
      [ttlMs * 1000, mailbox, owner, epoch],
    )) as WriteResult;
    if (result.affectedRows !== 1) throw new MailboxLeaseLost(mailbox);
  }

  /** Frees the lease while it is `owner`'s (on shutdown), so another replica reads the mailbox at once. */
  async release(mailbox: string, owner: string): Promise<void> {
    await this.database.query('UPDATE mailbox_leases SET owner = NULL, expires_at = NOW(3) WHERE mailbox = ? AND owner = ?', [
      mailbox,
      owner,
    ]);
  }
}
