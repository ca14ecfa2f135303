import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { BatchedLookup } from '../database/batched-lookup.js';
import { Database } from '../database/database.js';
import type { Queryable } from '../database/statement-batch.js';
import { known, type ReadResults, type RowsRead, readTogether } from '../database/rows-read.js';
import type { TicketResponse } from './dto/ticket-response.dto.js';
import {
  type ListedTicket,
  listedTicketFromRow,
  SHORT_ESCAPES,
  TICKET_COLUMNS,
  TICKET_JSON_COLUMN,
  type TicketRow,
  type TicketTextRow,
  ticketFromRow,
  ticketJsonBytes,
} from './ticket-row.js';
import type { TicketQuery } from './query/ticket-query.js';
import { type ListPlan, matchingTicketsSql, type SqlStatement, ticketCountSql, ticketListSql, walkable } from './query/ticket-query-sql.js';
import { type GroupSql, STATS_GROUPS_MAX } from './stats/ticket-stats.js';
import {
  type SetSize,
  type EstimateRow,
  estimatedSizes,
  type TicketSet,
  setEstimatesSql,
  startingSet,
  ticketSets,
  walkBound,
} from './query/vocabulary-sql.js';
import { type PrefixWordCount, prefixWordCountSql } from './query/search-prefix-bound.js';
import type { SearchTerm } from './query/ticket-search.js';
import { insertTicketWords, type SearchableText, updateTicketWords } from './query/ticket-words.js';

/** An unpaged list: its rows as they arrive, and the JSON of each. */
export interface TicketJsonRows {
  rows: Readable;
  json: (row: [Buffer]) => Buffer;
}

interface InsertResult {
  insertId: number | string;
}

/** A new ticket's row: its fields (its times among them) and the time of its create. */
export interface NewTicketRow {
  fields: Omit<TicketResponse, 'id'>;
  now: Date;
}

const INSERT_TICKET = `INSERT INTO tickets (title, description, status, priority, requester_email, assigned_to, created_at, updated_at, resolved_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * `tickets` and its search index `ticket_words` in plain SQL, mapped once from rows to the wire shape (ticket-row.ts).
 * Building entities and queries through TypeORM's repository cost more CPU than the statements themselves on every
 * hot path (see bench/). Reads go through Database; writes run on the transaction the
 * service hands in. The list's SQL is built by query/ticket-query-sql.ts, the search index's by query/ticket-words.ts.
 */

/** The ticket's row, locked until the transaction ends. */
const LOCK_TICKET = `SELECT ${TICKET_COLUMNS} FROM tickets WHERE id = ? FOR UPDATE`;

/** MariaDB's "Sort aborted": a sort stopped by LIMIT ROWS EXAMINED. */
const ER_FILSORT_ABORT = 1028;
@Injectable()
export class TicketsRepository {
  private shortEscapes?: Promise<boolean>;

  constructor(private readonly database: Database) {}

  private readonly byId = new BatchedLookup<TicketRow>(async (ids) => {
    const rows = await this.database.rows<TicketRow>(`SELECT ${TICKET_COLUMNS} FROM tickets WHERE id IN (?)`, [ids]);
    return new Map(rows.map((row) => [String(row.id), row]));
  });

  /** By id, read in batches with the reads of other requests (see BatchedLookup). */
  async findById(id: string): Promise<TicketResponse | undefined> {
    const row = await this.database.withinDeadline(() => this.byId.get(id));
    return row && ticketFromRow(row);
  }

  /** The tickets the query selects (of `visible` only, when given: a requester's): its page and one more when paged, so the caller knows whether more follow. */
  async list(query: TicketQuery, visible?: SqlStatement): Promise<ListedTicket[]> {
    const sets = ticketSets(query.filters);
    const sizes = visible || sets.length === 0 ? undefined : await this.sizes(sets);
    const plan = sizes ? this.plan(query, sizes) : {};
    if (!plan.walk) return (await this.listed(query, visible, plan)).rows.map(listedTicketFromRow);
    const walked = await this.listed(query, visible, plan).catch((error: unknown) => {
      // A walk stopped by its bound while sorting (which walkable avoids) is one cut short too.
      if ((error as { errno?: number }).errno === ER_FILSORT_ABORT) return { rows: [], cut: true };
      throw error;
    });
    // A walk stopped at its bound says so by a warning; it is read again from the set estimated smallest.
    const rows = walked.cut ? (await this.listed(query, visible, { start: startingSet(sizes!, Infinity)! })).rows : walked.rows;
    return rows.map(listedTicketFromRow);
  }

  /** The list's rows; a walk's (plan.walk) also say whether its bound cut it short (any warning of its statements). */
  private async listed(
    query: TicketQuery,
    visible: SqlStatement | undefined,
    plan: ListPlan,
  ): Promise<{ rows: TicketTextRow[]; cut: boolean }> {
    const listing = ticketListSql(query, TICKET_COLUMNS, visible, plan);
    const read = async (statement: SqlStatement): Promise<{ rows: TicketTextRow[]; cut: boolean }> => {
      if (!plan.bound)
        return { rows: await this.database.rows<TicketTextRow>(statement.sql, statement.params, { dateStrings: true }), cut: false };
      const [rows, [{ warnings }]] = await this.database.query<[TicketTextRow[], Array<{ warnings: number | string }>]>(
        `${statement.sql}; SELECT @@warning_count AS warnings`,
        statement.params,
        { dateStrings: true },
      );
      return { rows, cut: Number(warnings) > 0 };
    };
    const first = await read(listing);
    if (first.cut || !listing.then || !query.page || first.rows.length > query.page.limit) return first;
    // Sorted by a field, the tickets without a value follow those with one while the page has room.
    const rest = await read(listing.then(first.rows.length));
    return { rows: [...first.rows, ...rest.rows], cut: rest.cut };
  }

  /**
   * How a list with tag or field filters is read (vocabulary-sql.ts), by its sets' estimated `sizes`: from the tickets
   * of the smallest when it is estimated at most SET_START_MAX entries; else led by the words of its search, or walked
   * in its order when an index gives it (walkable); else (or `anyway`) from the set estimated smallest, however large.
   */
  private plan(query: TicketQuery, sizes: readonly SetSize[], anyway = false): ListPlan {
    const small = startingSet(sizes);
    if (small !== undefined) return { start: small };
    if (!anyway && query.page && query.filters.search !== undefined) return {};
    if (!anyway && query.page && walkable(query)) return { walk: true, ...(this.database.isMariaDb && { bound: walkBound(sizes) }) };
    return { start: startingSet(sizes, Infinity)! };
  }

  /**
   * How many entries each set has, as the optimizer estimates them (EXPLAIN's `rows`: exact for a range of a few
   * pages, often half or twice beyond, from a dive or two into the index however large the set, where counting a set's
   * first 5,001 entries took 5–10 ms at 1,000,000 tickets), in one round trip.
   */
  private async sizes(sets: readonly TicketSet[]): Promise<SetSize[]> {
    const estimating = setEstimatesSql(sets, this.database.isMariaDb);
    const answered = await this.database.query<unknown[]>(estimating.sql, estimating.params);
    // One statement answers its rows, several the list of each one's rows.
    return estimatedSizes((sets.length === 1 ? [answered] : answered) as EstimateRow[][]);
  }

  /** Every ticket an unpaged query selects, as a stream of rows holding its JSON, and how to write each. */
  async stream(query: TicketQuery, visible?: SqlStatement): Promise<TicketJsonRows> {
    const json = ticketJsonBytes(await this.shortEscapesAlike());
    const sets = ticketSets(query.filters);
    const plan = visible || sets.length === 0 ? {} : this.plan(query, await this.sizes(sets), true);
    const listing = ticketListSql(query, TICKET_JSON_COLUMN, visible, plan);
    return { rows: await this.database.stream(listing.sql, listing.params, { bytes: true, highWaterMark: 1024 }), json };
  }

  /** Whether the server's JSON_QUOTE writes JSON's short escapes as JSON.stringify does (see ticketJsonBytes); asked once. */
  private shortEscapesAlike(): Promise<boolean> {
    this.shortEscapes ??= this.database.rows<{ quoted: string }>('SELECT JSON_QUOTE(?) AS quoted', [SHORT_ESCAPES]).then(
      ([row]) => row.quoted === JSON.stringify(SHORT_ESCAPES),
      (error: unknown) => {
        this.shortEscapes = undefined;
        throw error;
      },
    );
    return this.shortEscapes;
  }

  /** How many of the tickets the query's filters match fall in each group (ticket-stats.ts), the largest first, one more than STATS_GROUPS_MAX at most. */
  /** The ids of the tickets the query's filters match, in order, the next `limit` after `afterId` (a job's snapshot reads them so). */
  async matchingIds(manager: Queryable, query: TicketQuery, afterId: number, limit: number): Promise<number[]> {
    const { from, where } = matchingTicketsSql(query);
    const after = where.sql ? `${where.sql} AND tickets.id > ?` : ' WHERE tickets.id > ?';
    const rows = (await manager.query(`SELECT DISTINCT tickets.id FROM ${from.sql}${after} ORDER BY tickets.id LIMIT ?`, [
      ...from.params,
      ...where.params,
      afterId,
      limit,
    ])) as Array<{ id: string | number }>;
    return rows.map((row) => Number(row.id));
  }

  /**
   * The tickets the query's filters match, in id order, the next `limit` after `afterId`: an export reads them so, a page
   * at a time in one transaction (whose first read fixes the snapshot every page reads).
   */
  async matchingPage(manager: Queryable, query: TicketQuery, afterId: number, limit: number): Promise<TicketResponse[]> {
    const { from, where } = matchingTicketsSql(query);
    const columns = TICKET_COLUMNS.split(', ')
      .map((column) => `tickets.${column}`)
      .join(', ');
    const after = where.sql ? `${where.sql} AND tickets.id > ?` : ' WHERE tickets.id > ?';
    // Each ticket once: a search's words are joined by their key, one row per ticket (as the count counts them).
    const rows = (await manager.query(`SELECT ${columns} FROM ${from.sql}${after} ORDER BY tickets.id LIMIT ?`, [
      ...from.params,
      ...where.params,
      afterId,
      limit,
    ])) as TicketRow[];
    return rows.map(ticketFromRow);
  }

  async countGroups(
    query: TicketQuery,
    groups: GroupSql,
    db: Queryable = this.database,
  ): Promise<Array<Record<string, unknown> & { count: number | string }>> {
    const { from, where } = matchingTicketsSql(query);
    return (await db.query(
      `SELECT ${groups.selects}, COUNT(*) AS count FROM ${from.sql}${groups.joins}${where.sql} GROUP BY ${groups.groups}` +
        ` ORDER BY ${groups.order} LIMIT ${STATS_GROUPS_MAX + 1}`,
      [...groups.selectParams, ...from.params, ...groups.params, ...where.params],
    )) as Array<Record<string, unknown> & { count: number | string }>;
  }

  /** How many tickets the query's filters match, and the earliest and latest of a time column among them (null: none has one). */
  async timeRange(
    query: TicketQuery,
    column: 'created_at' | 'resolved_at',
    db: Queryable = this.database,
  ): Promise<{ total: number; from: Date | null; to: Date | null }> {
    const { from, where } = matchingTicketsSql(query);
    const [range] = (await db.query(
      `SELECT COUNT(*) AS total, MIN(tickets.${column}) AS first, MAX(tickets.${column}) AS last FROM ${from.sql}${where.sql}`,
      [...from.params, ...where.params],
    )) as Array<{ total: number | string; first: Date | null; last: Date | null }>;
    return { total: Number(range.total), from: range.first, to: range.last };
  }

  /** How many tickets match the query's filters. */
  async count(query: TicketQuery, visible?: SqlStatement, db: Queryable = this.database): Promise<number> {
    const counting = ticketCountSql(query, visible);
    const [counted] = (await db.query(counting.sql, counting.params)) as Array<{ total: number | string }>;
    return Number(counted.total);
  }

  /** How many words of the index each prefix term matches (search-prefix-bound.ts); undefined without prefix terms. */
  prefixWordCounts(terms: readonly SearchTerm[] | null | undefined): Promise<PrefixWordCount[]> | undefined {
    const prefixes = prefixWordCountSql(terms);
    return prefixes && this.database.rows<PrefixWordCount>(prefixes.sql, prefixes.params);
  }

  /** Inserts the tickets, several in one round trip: the tickets with their ids, in order. */
  async insertAll(transaction: Queryable, pending: readonly NewTicketRow[]): Promise<TicketResponse[]> {
    return (await this.insertAllAfter(transaction, known(undefined), pending))[1];
  }

  /** Inserts the tickets as insertAll does, after the read `before` in the same round trip (the server runs them in turn). */
  async insertAllAfter<T>(transaction: Queryable, before: RowsRead<T>, pending: readonly NewTicketRow[]): Promise<[T, TicketResponse[]]> {
    const inserts: Array<RowsRead<TicketResponse>> = pending.map(({ fields }) => ({
      sql: INSERT_TICKET,
      params: [
        fields.title,
        fields.description,
        fields.status,
        fields.priority,
        fields.requesterEmail,
        fields.assignedTo,
        fields.createdAt,
        fields.updatedAt,
        fields.resolvedAt,
      ],
      // An INSERT answers its result, not rows.
      from: (answer) => ({ id: Number((answer as InsertResult).insertId), ...fields }),
    }));
    const [found, ...tickets] = await readTogether(transaction, before, ...inserts);
    return [found, tickets];
  }

  /** The ticket, its row locked until the transaction ends. */
  async findForUpdate(transaction: Queryable, id: string): Promise<TicketResponse | undefined> {
    const [row] = (await transaction.query(LOCK_TICKET, [id])) as TicketRow[];
    return row && ticketFromRow(row);
  }

  /**
   * The ticket, its row locked until the transaction ends, and what `reads` find once the lock is held, in the same
   * round trip (the server runs the statements in turn): what a write reads of the ticket's other rows, which every
   * writer changes only under this lock.
   */
  findForUpdateWith<R extends ReadonlyArray<RowsRead<unknown>>>(
    transaction: Queryable,
    id: string,
    ...reads: R
  ): Promise<[TicketResponse | undefined, ...ReadResults<R>]> {
    const lock: RowsRead<TicketResponse | undefined> = {
      sql: LOCK_TICKET,
      params: [id],
      from: (rows) => {
        const [row] = rows as TicketRow[];
        return row ? ticketFromRow(row) : undefined;
      },
    };
    return readTogether(transaction, lock, ...reads) as Promise<[TicketResponse | undefined, ...ReadResults<R>]>;
  }

  /** Locks the tickets' rows in id order (two writes locking some of the same tickets wait in turn, never in a deadlock) and reads them. */
  async findAllForUpdate(transaction: Queryable, ids: readonly number[]): Promise<TicketResponse[]> {
    const rows = (await transaction.query(`SELECT ${TICKET_COLUMNS} FROM tickets WHERE id IN (?) ORDER BY id FOR UPDATE`, [
      ids,
    ])) as TicketRow[];
    return rows.map(ticketFromRow);
  }

  async update(manager: Queryable, id: string, updated: TicketResponse): Promise<void> {
    await manager.query(
      `UPDATE tickets SET title = ?, description = ?, status = ?, priority = ?, requester_email = ?, assigned_to = ?,
         updated_at = ?, resolved_at = ? WHERE id = ?`,
      [
        updated.title,
        updated.description,
        updated.status,
        updated.priority,
        updated.requesterEmail,
        updated.assignedTo,
        updated.updatedAt,
        updated.resolvedAt,
        id,
      ],
    );
  }

  /** Its comments, history and search words go with it, by foreign key. */
  async delete(manager: Queryable, id: string): Promise<void> {
    await manager.query('DELETE FROM tickets WHERE id = ?', [id]);
  }

  /** The search words of new tickets, in the creates' transaction. */
  insertWords(manager: Queryable, tickets: ReadonlyArray<SearchableText & { id: number | string }>): Promise<void> {
    return insertTicketWords(manager, tickets);
  }

  /** The search words an update changed, in the update's transaction (see updateTicketWords). */
  updateWords(manager: Queryable, id: string, before: SearchableText, after: SearchableText): Promise<void> {
    return updateTicketWords(manager, id, before, after);
  }
}

/**
 * Whether the ticket exists. With `lock`, its row stays locked until the caller's transaction ends. A function of the
 * connection it runs on, for the sub-resources (comments, history), which check their ticket on their own.
 */
export async function ticketExists(db: Queryable, id: string, lock = false): Promise<boolean> {
  const rows = (await db.query(`SELECT id FROM tickets WHERE id = ?${lock ? ' FOR UPDATE' : ''}`, [id])) as unknown[];
  return rows.length > 0;
}
