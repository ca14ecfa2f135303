import { TICKET_COLUMNS } from '../ticket-row.js';
import type { TicketFilters, TicketQuery } from './ticket-query.js';
import { SORT_COLUMNS, type SortField, type SortKey } from './ticket-sort.js';

export interface SqlStatement {
  sql: string;
  params: unknown[];
}

type Condition = SqlStatement;

/**
 * The indexes that serve the common queues (migration AddTicketQueryIndexes). When a query is exactly one of
 * them (these equality filters and nothing else, sorted by these columns and then id, in one direction),
 * the index is named: with a cursor, the optimizer would otherwise read the queue through the index's first
 * column alone (a `ref` on status) and skip over every row before the cursor instead of starting there (a
 * `range` on status and updated_at), so a page deep in the queue would cost more than the first.
 */
const QUEUE_INDEXES: ReadonlyArray<{ name: string; equal: ReadonlyArray<keyof TicketFilters>; sort: readonly SortField[] }> = [
  { name: 'idx_tickets_status_updated', equal: ['statuses'], sort: ['updatedAt'] },
  { name: 'idx_tickets_requester_created', equal: ['requesterEmail'], sort: ['createdAt'] },
  { name: 'idx_tickets_assignee_status', equal: ['assignedTo', 'statuses'], sort: [] },
  { name: 'idx_tickets_priority_status', equal: ['priorities', 'statuses'], sort: [] },
];

/** The page (or, unpaged, every match) of a query, one row more than the limit to tell whether a next page exists. */
export function ticketListSql(query: TicketQuery): SqlStatement {
  const conditions = filterConditions(query.filters);
  if (query.page?.after) conditions.push(afterCondition(query.sort, query.page.after));
  const where = whereClause(conditions);
  const order = query.sort.map(({ field, descending }) => `${SORT_COLUMNS[field].column} ${descending ? 'DESC' : 'ASC'}`).join(', ');
  const limit = query.page ? ` LIMIT ${query.page.limit + 1}` : '';
  return { sql: `SELECT ${TICKET_COLUMNS} FROM tickets${indexHint(query)}${where.sql} ORDER BY ${order}${limit}`, params: where.params };
}

/** How many tickets match the filters, whatever the page. */
export function ticketCountSql(query: TicketQuery): SqlStatement {
  const where = whereClause(filterConditions(query.filters));
  return { sql: `SELECT COUNT(*) AS total FROM tickets${where.sql}`, params: where.params };
}

function filterConditions(filters: TicketFilters): Condition[] {
  const conditions: Condition[] = [];
  const inList = (column: string, values: string[]) =>
    conditions.push(values.length === 1 ? { sql: `${column} = ?`, params: values } : { sql: `${column} IN (?)`, params: [values] });
  if (filters.statuses.length > 0) inList('status', filters.statuses);
  if (filters.priorities.length > 0) inList('priority', filters.priorities);
  // Both columns have a case-insensitive collation: equality is the whole value, in any case.
  if (filters.requesterEmail !== undefined) conditions.push({ sql: 'requester_email = ?', params: [filters.requesterEmail] });
  if (filters.assignedTo !== undefined) conditions.push({ sql: 'assigned_to = ?', params: [filters.assignedTo] });
  const time = (column: string, operator: string, millis?: number) =>
    millis !== undefined && conditions.push({ sql: `${column} ${operator} ?`, params: [new Date(millis)] });
  time('created_at', '>=', filters.createdAfter);
  time('created_at', '<', filters.createdBefore);
  time('updated_at', '>=', filters.updatedAfter);
  time('updated_at', '<', filters.updatedBefore);
  if (filters.search === null) conditions.push({ sql: 'FALSE', params: [] });
  if (filters.search) conditions.push({ sql: 'MATCH (title, description) AGAINST (? IN BOOLEAN MODE)', params: [filters.search] });
  return conditions;
}

/**
 * Keyset condition "sorts after this position", written out for any mix of directions as
 * `k1 > v1 OR (k1 = v1 AND k2 > v2) OR ...` (with < for a descending key). An enum key compares by its
 * position in the enum, so "after" is the list of values that sort after it, never a string comparison.
 */
function afterCondition(sort: readonly SortKey[], position: ReadonlyArray<number | string>): Condition {
  const branches: Condition[] = [];
  for (let i = 0; i < sort.length; i++) {
    const equalBefore = sort.slice(0, i).map((key, j) => ({ sql: `${SORT_COLUMNS[key.field].column} = ?`, params: [bound(key, position[j])] }));
    const beyond = beyondCondition(sort[i], position[i]);
    if (beyond) branches.push(and([...equalBefore, beyond]));
  }
  if (branches.length === 0) return { sql: 'FALSE', params: [] };
  return { sql: `(${branches.map((b) => b.sql).join(' OR ')})`, params: branches.flatMap((b) => b.params) };
}

function beyondCondition(key: SortKey, value: number | string): Condition | undefined {
  const { column, kind, values } = SORT_COLUMNS[key.field];
  if (kind !== 'enum') return { sql: `${column} ${key.descending ? '<' : '>'} ?`, params: [bound(key, value)] };
  const at = values!.indexOf(value as string);
  const later = key.descending ? values!.slice(0, at) : values!.slice(at + 1);
  return later.length > 0 ? { sql: `${column} IN (?)`, params: [later] } : undefined;
}

function bound(key: SortKey, value: number | string): unknown {
  return SORT_COLUMNS[key.field].kind === 'time' ? new Date(value as number) : value;
}

function and(conditions: Condition[]): Condition {
  const sql = conditions.map((c) => c.sql).join(' AND ');
  return { sql: conditions.length > 1 ? `(${sql})` : sql, params: conditions.flatMap((c) => c.params) };
}

function whereClause(conditions: Condition[]): Condition {
  if (conditions.length === 0) return { sql: '', params: [] };
  return { sql: ` WHERE ${conditions.map((c) => c.sql).join(' AND ')}`, params: conditions.flatMap((c) => c.params) };
}

function indexHint(query: TicketQuery): string {
  const { filters, sort } = query;
  const used = (Object.keys(filters) as Array<keyof TicketFilters>).filter((name) => {
    const value = filters[name];
    return Array.isArray(value) ? value.length > 0 : value !== undefined;
  });
  const direction = sort[0].descending;
  if (sort.some((key) => key.descending !== direction)) return '';
  const sortColumns = sort.slice(0, -1).map((key) => key.field);
  const single = (name: keyof TicketFilters) => !Array.isArray(filters[name]) || (filters[name] as unknown[]).length === 1;
  const index = QUEUE_INDEXES.find(
    (candidate) =>
      candidate.equal.length === used.length &&
      candidate.equal.every((name) => used.includes(name) && single(name)) &&
      candidate.sort.join() === sortColumns.join(),
  );
  return index ? ` FORCE INDEX (${index.name})` : '';
}
