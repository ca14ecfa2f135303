import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database.js';
import type { Queryable } from '../../database/statement-batch.js';
import type { RowsRead } from '../../database/rows-read.js';

/** A source merged into a target, with what an unmerge restores (migration TicketMerges). */
export interface StoredMerge {
  sourceId: number;
  targetId: number;
  mergedAt: Date;
  mergedBy: string | null;
  statusBefore: string;
  resolvedAtBefore: Date | null;
  /** The `duplicate-of` link the merge added; null when the source had it already. */
  linkId: number | null;
  /** The addresses the target gained from this source. */
  participantsAdded: string[];
}

interface MergeRow {
  source_id: string | number;
  target_id: string | number;
  merged_at: Date;
  merged_by: string | null;
  status_before: string;
  resolved_at_before: Date | null;
  link_id: string | number | null;
  participants_added: string;
}

const mergeOf = (row: MergeRow): StoredMerge => ({
  sourceId: Number(row.source_id),
  targetId: Number(row.target_id),
  mergedAt: row.merged_at,
  mergedBy: row.merged_by,
  statusBefore: row.status_before,
  resolvedAtBefore: row.resolved_at_before,
  linkId: row.link_id === null ? null : Number(row.link_id),
  participantsAdded: JSON.parse(row.participants_added) as string[],
});

/**
 * The ticket and every ticket merged into it, at any depth (a ticket merged into a source that was merged in turn), in
 * id order: whose comments and attachments the ticket lists. Merges never form a cycle (a target is never a merged
 * ticket), so the walk ends. Read first, so that the list's own statement names its tickets (`ticket_id IN (…)`, one id
 * for a ticket never merged, which reads its index range in order as before).
 */
export async function mergedView(manager: Queryable, id: number | string): Promise<number[]> {
  const rows = (await manager.query(
    `WITH RECURSIVE merged_view (id) AS (SELECT CAST(? AS UNSIGNED)
       UNION SELECT m.source_id FROM merged_view v JOIN ticket_merges m ON m.target_id = v.id)
     SELECT id FROM merged_view ORDER BY id`,
    [id],
  )) as Array<{ id: string | number }>;
  return rows.map((row) => Number(row.id));
}

/** The ticket this one is merged into, if it is. */
export async function mergedInto(manager: Queryable, id: number): Promise<number | undefined> {
  const [row] = (await manager.query('SELECT target_id FROM ticket_merges WHERE source_id = ?', [id])) as MergeRow[];
  return row && Number(row.target_id);
}

/** The end of the ticket's chain of merges: the ticket its conversation goes on in (itself when it is not merged). */
export async function finalMergeTarget(manager: Queryable, id: number): Promise<number> {
  const [row] = (await manager.query(
    `WITH RECURSIVE chain (id, depth) AS (SELECT CAST(? AS UNSIGNED), 0
       UNION SELECT m.target_id, c.depth + 1 FROM chain c JOIN ticket_merges m ON m.source_id = c.id)
     SELECT id FROM chain ORDER BY depth DESC LIMIT 1`,
    [id],
  )) as Array<{ id: string | number }>;
  return row ? Number(row.id) : id;
}

/** The tickets merged into this one (directly), by id. */
export function sourcesRead(targetId: number): RowsRead<number[]> {
  return {
    sql: 'SELECT source_id FROM ticket_merges WHERE target_id = ? ORDER BY source_id',
    params: [targetId],
    from: (rows) => (rows as MergeRow[]).map((row) => Number(row.source_id)),
  };
}

/** `ticket_merges`: each source merged into its target, until it is unmerged. */
@Injectable()
export class MergesRepository {
  constructor(private readonly database: Database) {}

  /** The target each of these tickets is merged into (those not merged are absent). */
  async targetsOf(ids: readonly number[], manager: Queryable = this.database): Promise<Map<number, number>> {
    if (ids.length === 0) return new Map();
    const rows = (await manager.query('SELECT source_id, target_id FROM ticket_merges WHERE source_id IN (?)', [ids])) as MergeRow[];
    return new Map(rows.map((row) => [Number(row.source_id), Number(row.target_id)]));
  }

  async find(manager: Queryable, sourceId: number): Promise<StoredMerge | undefined> {
    const [row] = (await manager.query('SELECT * FROM ticket_merges WHERE source_id = ?', [sourceId])) as MergeRow[];
    return row && mergeOf(row);
  }

  /** The merges into the target, but for `except`, with each source's requester (canonical). */
  async into(manager: Queryable, targetId: number, except: number): Promise<Array<StoredMerge & { requester: string }>> {
    const rows = (await manager.query(
      `SELECT m.*, t.requester_key FROM ticket_merges m JOIN tickets t ON t.id = m.source_id
       WHERE m.target_id = ? AND m.source_id <> ? ORDER BY m.source_id`,
      [targetId, except],
    )) as Array<MergeRow & { requester_key: string }>;
    return rows.map((row) => ({ ...mergeOf(row), requester: row.requester_key }));
  }

  async insert(transaction: Queryable, merges: readonly StoredMerge[]): Promise<void> {
    await transaction.query(
      `INSERT INTO ticket_merges (source_id, target_id, merged_at, merged_by, status_before, resolved_at_before, link_id,
         participants_added) VALUES ?`,
      [
        merges.map((merge) => [
          merge.sourceId,
          merge.targetId,
          merge.mergedAt,
          merge.mergedBy,
          merge.statusBefore,
          merge.resolvedAtBefore,
          merge.linkId,
          JSON.stringify(merge.participantsAdded),
        ]),
      ],
    );
  }

  async setParticipantsAdded(transaction: Queryable, sourceId: number, addresses: readonly string[]): Promise<void> {
    await transaction.query('UPDATE ticket_merges SET participants_added = ? WHERE source_id = ?', [JSON.stringify(addresses), sourceId]);
  }

  async delete(transaction: Queryable, sourceId: number): Promise<void> {
    await transaction.query('DELETE FROM ticket_merges WHERE source_id = ?', [sourceId]);
  }
}
