import type { ResolvedFieldFilter } from '../../fields/field-filters.js';
import type { TicketFilters } from './ticket-query.js';

/** A statement and its parameters (ticket-query-sql.ts's SqlStatement, which imports this file). */
interface SqlStatement {
  sql: string;
  params: unknown[];
}

/**
 * The tickets one tag or custom field filter selects: a range of one index of `ticket_tags` (primary key (tag,
 * ticket_id)) or `ticket_field_values` (by field and value, migrations CustomFields and SortByFieldsAndRecency).
 */
export interface TicketSet {
  table: 'ticket_tags' | 'ticket_field_values';
  /** Its conditions, each on one column of `table` and named first (so that whereOf can qualify it), all of them true. */
  terms: string[];
  params: unknown[];
  /**
   * The index a lookup of one ticket reads: one value's entries of a field by (field_id, text_sort, ticket_id) lie
   * together, a few pages that stay in memory, where the primary key would be read at the ticket's own place in the
   * table (a read from disk per ticket when the values outgrow the buffer pool).
   */
  lookup?: string;
}

/**
 * A set of at most this many index entries is where a page starts: its tickets are read by key and sorted (a few
 * milliseconds). A larger one is checked per ticket while the list's sort index is walked until the page is full,
 * which reads about `limit × tickets / matches` of them: the more a filter matches, the sooner a page fills
 * (docs/performance.md#tags-and-custom-fields).
 */
export const SET_START_MAX = 5000;

/**
 * How many rows a walk may examine at least (MariaDB's `LIMIT … ROWS EXAMINED`, the index entries read and each
 * lookup): filters that are each common but rarely together (two tags never on one ticket) would otherwise read the
 * whole index. A walk stopped so is read again from the set estimated smallest (TicketsRepository).
 */
export const WALK_ROWS_MAX = 40_000;

/**
 * A walk's bound of rows examined: about what reading the list from the smallest set would examine (each of its entries
 * and its look-up in the first other set, two rows, most of them going no further), and at least WALK_ROWS_MAX. A walk
 * cut short and the read after it then cost at most about twice that read alone, where a walk that fills its page, or
 * ends, costs far less: four filters each common (`status`, a tag of 100,000 tickets, an option of 125,000, a range of
 * half of them) fill a page of 50 sorted by a field after about 44,000 values at 1,000,000 tickets, 0.1 s, where
 * reading the tag's tickets took 0.5 s (docs/performance.md#tags-and-custom-fields).
 */
export function walkBound(sizes: readonly SetSize[]): number {
  return Math.max(WALK_ROWS_MAX, 2 * Math.min(...sizes.map(({ entries }) => Number(entries))));
}

/** Each tag (all of them), any of `anyTags`, and each custom field filter, a field's range of `.gte` and `.lt` as one set. */
export function ticketSets(filters: TicketFilters): TicketSet[] {
  const sets: TicketSet[] = (filters.tags ?? []).map((tag) => ({ table: 'ticket_tags', terms: ['tag = ?'], params: [tag] }));
  if (filters.anyTags) sets.push({ table: 'ticket_tags', terms: ['tag IN (?)'], params: [filters.anyTags] });
  const byField = new Map<number, ResolvedFieldFilter[]>();
  for (const condition of filters.fieldConditions ?? [])
    byField.set(condition.fieldId, [...(byField.get(condition.fieldId) ?? []), condition]);
  for (const [fieldId, conditions] of byField) {
    const terms = ['field_id = ?'];
    const params: unknown[] = [fieldId];
    let lookup: string | undefined;
    for (const { column, op, values, long } of conditions) {
      if (op !== 'in') {
        terms.push(`${column} ${op === 'gte' ? '>=' : '<'} ?`);
        params.push(values[0]);
      } else if (column === 'text_value') {
        // The index holds the first 255 characters (text_sort), all of an option's or a boolean's; a text's whole value
        // is then compared on each of its rows.
        terms.push('text_sort IN (?)', ...(long ? ['text_value IN (?)'] : []));
        params.push([...new Set(values.map((value) => [...String(value)].slice(0, 255).join('')))], ...(long ? [values] : []));
        lookup = 'idx_field_values_text_sort';
      } else {
        terms.push(`${column} IN (?)`);
        params.push(values);
      }
    }
    sets.push({ table: 'ticket_field_values', terms, params, ...(lookup && { lookup }) });
  }
  return sets;
}

/** Whether looking a ticket up in the set reads pages that stay in memory (a tag's, a value's by `lookup`), not the ticket's own place. */
export function lookedUpNearby(set: TicketSet): boolean {
  return set.table === 'ticket_tags' || set.lookup !== undefined;
}

/** The set's conditions, on the columns of `alias` when given. */
export function whereOf(set: TicketSet, alias?: string): string {
  return set.terms.map((term) => (alias ? `${alias}.${term}` : term)).join(' AND ');
}

/** Whether a ticket has at most one entry in the set: one tag's, one value's of a field (a multi_enum holds each item once). */
export function onePerTicket(set: TicketSet): boolean {
  return !set.params.some((param) => Array.isArray(param) && param.length > 1);
}

/** The tickets of the set as a condition on `column`, for a statement that reads every match (a count). */
export function inSet(column: string, set: TicketSet): SqlStatement {
  return { sql: `${column} IN (SELECT ticket_id FROM ${set.table} WHERE ${whereOf(set)})`, params: set.params };
}

/**
 * Whether the ticket `column` is in the set, looked up by key for each ticket read: a scalar subquery, which MariaDB
 * checks per row where a semi-join would first collect every ticket of the set.
 */
export function probeSet(column: string, set: TicketSet): SqlStatement {
  return {
    sql: `(SELECT 1 FROM ${set.table}${forcedIndex(set)} WHERE ${whereOf(set)} AND ticket_id = ${column} LIMIT 1) IS NOT NULL`,
    params: set.params,
  };
}

/** How each ticket read is checked, by the id read: tables joined to it by key (`STRAIGHT_JOIN …`), then conditions. */
export interface Lookups {
  joins: SqlStatement;
  conditions: SqlStatement[];
}

/**
 * The ticket `column` looked up in each set, in the order given: a set with at most one entry per ticket
 * (onePerTicket) as a join by key, named `${prefix}0`, `${prefix}1`…, the others as a subquery each (probeSet).
 * MariaDB reads a join as one look-up per row and a subquery sets itself up anew for each row: a walk of 2,500
 * tickets checked in a tag took 40 % longer so, checking 100,000 entries of a set in two others 1.5 times as long.
 */
export function lookUp(column: string, sets: readonly TicketSet[], prefix: string): Lookups {
  const joins = sets.filter(onePerTicket).map((set, i) => {
    const alias = `${prefix}${i}`;
    return {
      sql: ` STRAIGHT_JOIN ${set.table} ${alias}${forcedIndex(set)} ON ${whereOf(set, alias)} AND ${alias}.ticket_id = ${column}`,
      params: set.params,
    };
  });
  return {
    joins: { sql: joins.map(({ sql }) => sql).join(''), params: joins.flatMap(({ params }) => params) },
    conditions: sets.filter((set) => !onePerTicket(set)).map((set) => probeSet(column, set)),
  };
}

function forcedIndex(set: TicketSet): string {
  return set.lookup ? ` FORCE INDEX (${set.lookup})` : '';
}

/**
 * The set's tickets, each once, to start a statement from (`AS alias`, its column `ticket_id`). One value's entries are
 * one ticket each (the index range is read in place); several values' (any of some tags, a multi_enum's items) are
 * collected without repeats first. `lookups` (of the id given: the other sets, a status) are made here, on the index
 * entries, and the tickets that pass collected (a derived table with a LIMIT is never merged into the statement around
 * it): MariaDB checks a subquery's condition only after the tables joined before it are read, so outside, each of a
 * large set's tickets would first be read from the table.
 */
export function setSource(set: TicketSet, alias: string, lookups?: (id: string) => Lookups): SqlStatement {
  const once = onePerTicket(set) ? '' : 'DISTINCT ';
  const looked = lookups?.('entries.ticket_id') ?? { joins: { sql: '', params: [] }, conditions: [] };
  const where = [whereOf(set, 'entries'), ...looked.conditions.map(({ sql }) => sql)].join(' AND ');
  const collected = looked.joins.sql || looked.conditions.length > 0 ? ` LIMIT ${COLLECT_ALL}` : '';
  return {
    sql: `(SELECT ${once}entries.ticket_id FROM ${set.table} entries${looked.joins.sql} WHERE ${where}${collected}) ${alias}`,
    params: [...looked.joins.params, ...set.params, ...looked.conditions.flatMap(({ params }) => params)],
  };
}

/** A LIMIT no set reaches (the largest MariaDB and MySQL take). */
const COLLECT_ALL = '18446744073709551615';

/**
 * The optimizer's estimate of each set's entries (EXPLAIN's `rows`), one statement per set: a dive or two into the
 * index, however large the set, where counting 200,000 entries of three sets took 0.3 s. Exact for a few pages' range,
 * often off by half or twice beyond, which is enough to choose where a list starts.
 */
export function setEstimatesSql(sets: readonly TicketSet[], mariaDb: boolean): SqlStatement {
  // MySQL's explain_format may be JSON or TREE, which have no `rows` column; MariaDB knows no FORMAT=TRADITIONAL.
  const explain = mariaDb ? 'EXPLAIN' : 'EXPLAIN FORMAT=TRADITIONAL';
  return {
    sql: sets.map((set) => `${explain} SELECT 1 FROM ${set.table} WHERE ${whereOf(set)}`).join(';\n'),
    params: sets.flatMap((set) => set.params),
  };
}

/** EXPLAIN's row of one set's statement: `rows` is NULL when the optimizer found the set empty. */
export interface EstimateRow {
  rows: number | string | null;
}

/** Each set's estimated entries from the EXPLAIN of each (setEstimatesSql), in order; an empty one's as 0. */
export function estimatedSizes(plans: ReadonlyArray<readonly EstimateRow[]>): SetSize[] {
  return plans.map(([row], term) => ({ term, entries: row.rows ?? 0 }));
}

export interface SetSize {
  term: number | string;
  entries: number | string;
}

/** The set with the fewest entries (the first of equals), when it has at most `bound`. */
export function startingSet(sizes: readonly SetSize[], bound = SET_START_MAX): number | undefined {
  const small = sizes
    .map(({ term, entries }) => ({ term: Number(term), entries: Number(entries) }))
    .filter(({ entries }) => entries <= bound);
  if (small.length === 0) return undefined;
  return small.reduce((best, size) =>
    size.entries < best.entries || (size.entries === best.entries && size.term < best.term) ? size : best,
  ).term;
}
