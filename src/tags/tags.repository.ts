import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { Queryable } from '../database/statement-batch.js';
import { listedByTicket, type RowsRead, readTogether } from '../database/rows-read.js';
import { likePrefix } from '../database/like-prefix.js';

/** A tag in use and how many tickets carry it. */
export interface TagCount {
  tag: string;
  tickets: number;
}

interface TagRow {
  ticket_id: string | number;
  tag: string;
}

/** The tags of each of these tickets (at least one), sorted (a ticket without any is absent). */
export function tagsRead(ticketIds: readonly number[]): RowsRead<Map<number, string[]>> {
  return {
    sql: 'SELECT ticket_id, tag FROM ticket_tags WHERE ticket_id IN (?) ORDER BY ticket_id, tag',
    params: [ticketIds],
    from: (rows) => listedByTicket(rows as TagRow[], (row) => row.tag),
  };
}

/** `ticket_tags`: the tags of each ticket, one row per ticket and tag (migration TicketTags). */
@Injectable()
export class TagsRepository {
  constructor(private readonly database: Database) {}

  /** The tags of each of these tickets, sorted (a ticket without any is absent). */
  async of(ticketIds: readonly number[], manager: Queryable = this.database): Promise<Map<number, string[]>> {
    if (ticketIds.length === 0) return new Map();
    const [tags] = await readTogether(manager, tagsRead(ticketIds));
    return tags;
  }

  /** Changes the ticket's tags from `before` to `after`, in the caller's transaction: only the rows that differ. */
  async change(transaction: Queryable, ticketId: number | string, before: readonly string[], after: readonly string[]): Promise<void> {
    const removed = before.filter((tag) => !after.includes(tag));
    const added = after.filter((tag) => !before.includes(tag));
    if (removed.length > 0) await transaction.query('DELETE FROM ticket_tags WHERE ticket_id = ? AND tag IN (?)', [ticketId, removed]);
    if (added.length > 0) {
      await transaction.query('INSERT INTO ticket_tags (tag, ticket_id) VALUES ?', [added.map((tag) => [tag, ticketId])]);
    }
  }

  /**
   * The tags in use that start with `prefix`, the most used first (then by tag), for autocomplete. Counted from the
   * index of each tag's tickets; a prefix narrows what is counted.
   */
  async inUse(prefix: string, limit: number): Promise<TagCount[]> {
    const rows = await this.database.rows<{ tag: string; tickets: string | number }>(
      `SELECT tag, COUNT(*) AS tickets FROM ticket_tags${prefix ? ' WHERE tag LIKE ?' : ''}
       GROUP BY tag ORDER BY tickets DESC, tag LIMIT ?`,
      prefix ? [likePrefix(prefix), limit] : [limit],
    );
    return rows.map((row) => ({ tag: row.tag, tickets: Number(row.tickets) }));
  }
}
