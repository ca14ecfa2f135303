import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database.js';
import type { Queryable } from '../../database/statement-batch.js';
import { type RowsRead, readTogether } from '../../database/rows-read.js';
import type { LinkKind, StoredLink } from './links.js';

interface LinkRow {
  id: string | number;
  from_id: string | number;
  to_id: string | number;
  kind: LinkKind;
  created_at: Date;
  created_by: string | null;
}

const COLUMNS = 'id, from_id, to_id, kind, created_at, created_by';

const linkOf = (row: LinkRow): StoredLink => ({
  id: Number(row.id),
  fromId: Number(row.from_id),
  toId: Number(row.to_id),
  kind: row.kind,
  createdAt: row.created_at,
  createdBy: row.created_by,
});

/** Every link of these tickets (at least one), from either side, oldest first. */
export function linksRead(ticketIds: readonly number[]): RowsRead<StoredLink[]> {
  return {
    sql: `SELECT ${COLUMNS} FROM ticket_links WHERE from_id IN (?) UNION SELECT ${COLUMNS} FROM ticket_links WHERE to_id IN (?) ORDER BY id`,
    params: [ticketIds, ticketIds],
    from: (rows) => (rows as LinkRow[]).map(linkOf),
  };
}

/** `ticket_links` (migration TicketLinks): each link once, from → to under its kind. */
@Injectable()
export class LinksRepository {
  constructor(private readonly database: Database) {}

  /** Locks the tickets' rows in id order (so two writes locking the same tickets wait in turn, never in a deadlock): the ids found. */
  async lockTickets(transaction: Queryable, ids: readonly number[]): Promise<Set<number>> {
    const rows = (await transaction.query('SELECT id FROM tickets WHERE id IN (?) ORDER BY id FOR UPDATE', [ids])) as Array<{ id: string }>;
    return new Set(rows.map((row) => Number(row.id)));
  }

  /**
   * Writes the kind's row, so that the adds of one hierarchy follow each other (a cycle needs two links; two adds
   * waiting for one row never close one together, and on a cluster the second to commit fails and is retried).
   */
  async serializeKind(transaction: Queryable, kind: LinkKind): Promise<void> {
    await transaction.query('UPDATE ticket_link_kinds SET links_added = links_added + 1 WHERE kind = ?', [kind]);
  }

  /** The links of the kind reachable from `start` along from → to (the kind's links have no cycle: each is followed once). */
  async reachable(transaction: Queryable, kind: LinkKind, start: number): Promise<Array<{ fromId: number; toId: number }>> {
    const rows = (await transaction.query(
      `WITH RECURSIVE reached (id) AS (
         SELECT CAST(? AS UNSIGNED)
         UNION
         SELECT l.to_id FROM reached r JOIN ticket_links l ON l.from_id = r.id AND l.kind = ?
       )
       SELECT l.from_id, l.to_id FROM ticket_links l JOIN reached r ON l.from_id = r.id WHERE l.kind = ?`,
      [start, kind, kind],
    )) as Array<{ from_id: string; to_id: string }>;
    return rows.map((row) => ({ fromId: Number(row.from_id), toId: Number(row.to_id) }));
  }

  async find(manager: Queryable, link: Pick<StoredLink, 'fromId' | 'toId' | 'kind'>): Promise<StoredLink | undefined> {
    const [row] = (await manager.query(`SELECT ${COLUMNS} FROM ticket_links WHERE from_id = ? AND to_id = ? AND kind = ?`, [
      link.fromId,
      link.toId,
      link.kind,
    ])) as LinkRow[];
    return row && linkOf(row);
  }

  async insert(transaction: Queryable, link: Omit<StoredLink, 'id'>): Promise<StoredLink> {
    const { insertId } = (await transaction.query(
      'INSERT INTO ticket_links (from_id, to_id, kind, created_at, created_by) VALUES (?, ?, ?, ?, ?)',
      [link.fromId, link.toId, link.kind, link.createdAt, link.createdBy],
    )) as { insertId: number };
    return { ...link, id: Number(insertId) };
  }

  /** The ticket's link `id` (from either side). */
  async ofTicket(manager: Queryable, ticketId: number, id: number): Promise<StoredLink | undefined> {
    const [row] = (await manager.query(`SELECT ${COLUMNS} FROM ticket_links WHERE id = ? AND (from_id = ? OR to_id = ?)`, [
      id,
      ticketId,
      ticketId,
    ])) as LinkRow[];
    return row && linkOf(row);
  }

  async delete(transaction: Queryable, id: number): Promise<void> {
    await transaction.query('DELETE FROM ticket_links WHERE id = ?', [id]);
  }

  /** Every link of these tickets, from either side, oldest first. */
  async of(ticketIds: readonly number[], manager: Queryable = this.database): Promise<StoredLink[]> {
    if (ticketIds.length === 0) return [];
    const [links] = await readTogether(manager, linksRead(ticketIds));
    return links;
  }

  /** The tickets a problem causes (its `causes` links), by id. */
  async caused(problemId: number): Promise<number[]> {
    const rows = await this.database.rows<{ to_id: string }>(
      "SELECT to_id FROM ticket_links WHERE from_id = ? AND kind = 'causes' ORDER BY to_id",
      [problemId],
    );
    return rows.map((row) => Number(row.to_id));
  }
}
