import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { Queryable } from '../database/statement-batch.js';

/**
 * The ticket an externalId became (null: it was deleted here since, and the import keeps knowing it), the hash of the
 * line it was last imported from, and its imported comments' keys.
 */
export interface KnownImport {
  ticketId: number | null;
  hash: string;
  commentKeys: string[];
}

/** `ticket_imports` (migration TicketImports): which ticket each of the other desk's ids became. */
@Injectable()
export class ImportsRepository {
  constructor(private readonly database: Database) {}

  /** The ticket `externalId` became, if any, locked until the caller's transaction ends (a line's writes wait in turn). */
  async lock(transaction: Queryable, externalId: string): Promise<KnownImport | undefined> {
    const [row] = (await transaction.query(
      'SELECT ticket_id, line_hash, comment_keys FROM ticket_imports WHERE external_id = ? FOR UPDATE',
      [externalId],
    )) as Array<{ ticket_id: string | number | null; line_hash: string; comment_keys: string }>;
    return (
      row && {
        ticketId: row.ticket_id === null ? null : Number(row.ticket_id),
        hash: row.line_hash,
        commentKeys: JSON.parse(row.comment_keys) as string[],
      }
    );
  }

  /**
   * The hashes of the lines these externalIds were last imported from (those never imported are absent), and the ticket
   * each became (null: deleted since), as committed now; in `transaction` with a shared lock until it ends (neither
   * written nor deleted meanwhile), else without one.
   */
  async hashes(externalIds: readonly string[], transaction?: Queryable): Promise<Map<string, { hash: string; ticketId: number | null }>> {
    if (externalIds.length === 0) return new Map();
    const rows = (await (transaction ?? this.database).query(
      `SELECT external_id, line_hash, ticket_id FROM ticket_imports WHERE external_id IN (?)${transaction ? ' LOCK IN SHARE MODE' : ''}`,
      [externalIds],
    )) as Array<{ external_id: string; line_hash: string; ticket_id: string | number | null }>;
    return new Map(
      rows.map((row) => [row.external_id, { hash: row.line_hash, ticketId: row.ticket_id === null ? null : Number(row.ticket_id) }]),
    );
  }

  /** Records, in the caller's transaction, what the line made of `externalId` (a second insert of one fails on its key). */
  async save(
    transaction: Queryable,
    externalId: string,
    known: KnownImport & { ticketId: number },
    isNew: boolean,
    now: Date,
  ): Promise<void> {
    const keys = JSON.stringify(known.commentKeys);
    await transaction.query(
      isNew
        ? 'INSERT INTO ticket_imports (line_hash, comment_keys, imported_at, ticket_id, external_id) VALUES (?, ?, ?, ?, ?)'
        : 'UPDATE ticket_imports SET line_hash = ?, comment_keys = ?, imported_at = ? WHERE ticket_id = ? AND external_id = ?',
      [known.hash, keys, now, known.ticketId, externalId],
    );
  }
}
