import { likePrefix } from '../../database/like-prefix.js';
import { TICKET_COLUMNS } from '../ticket-row.js';
import type { TicketFilters, TicketQuery } from './ticket-query.js';
import type { SearchTerm } from './ticket-search.js';
import { SORT_COLUMNS, type SortField, type SortKey } from './ticket-sort.js';
import type { ResolvedFieldSort } from '../../fields/field-filters.js';
import { inSet, type Lookups, lookUp, lookedUpNearby, setSource, ticketSets } from './vocabulary-sql.js';
import { type LinkType, typeSide } from '../links/links.js';

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
  // Migration SortByFieldsAndRecency: every ticket by its last change.
  { name: 'idx_tickets_updated', equal: [], sort: ['updatedAt'] },
  { name: 'idx_tickets_requester_created', equal: ['requesterEmail'], sort: ['createdAt'] },
  { name: 'idx_tickets_assignee_status', equal: ['assignedTo', 'statuses'], sort: [] },
  { name: 'idx_tickets_priority_status', equal: ['priorities', 'statuses'], sort: [] },
  // SLA (migration CreateSlaClocks): the due queue, whole or up to a time, and the breached ones by due time.
  { name: 'idx_tickets_sla_due', equal: [], sort: ['slaDueAt'] },
  { name: 'idx_tickets_sla_due', equal: ['slaDueBefore'], sort: ['slaDueAt'] },
  { name: 'idx_tickets_sla_breached', equal: ['slaBreached'], sort: ['slaDueAt'] },
  // (sla_breached) holds the id after it, as every InnoDB secondary index does: the breached ones by id.
  { name: 'idx_tickets_sla_breached_id', equal: ['slaBreached'], sort: [] },
  { name: 'idx_tickets_status_sla_due', equal: ['statuses'], sort: ['slaDueAt'] },
  { name: 'idx_tickets_assignee_sla_due', equal: ['assignedTo'], sort: ['slaDueAt'] },
];

/**
 * How a list with tag or field filters is read: from the tickets of one of them (ticketSets' index), or by walking the
 * sort's index and looking each ticket up in them (`walk`), at most `bound` rows examined.
 */
export interface ListPlan {
  start?: number;
  walk?: boolean;
  /** A walk's bound of rows examined (walkBound on MariaDB; MySQL has no such bound, its walks end at the deadline). */
  bound?: number;
}

/** A list's statement; sorted by a custom field, maybe followed by the tickets without a value when its page has room. */
export interface ListStatement extends SqlStatement {
  /** The statement reading the tickets without a value, after `found` rows of this one. */
  then?: (found: number) => SqlStatement;
}

/**
 * The page (or, unpaged, every match) of a query, one row more than the limit to tell whether a next page exists.
 * `visible`, a requester's tickets (src/people/visibility.ts), is where the list starts: the tickets of that
 * statement, each joined by id and filtered, searched and sorted as any list. A requester's tickets are few beside the
 * table, so reading them first and sorting them costs less than walking an index in order and testing each row.
 * So does a tag or field filter's set (`plan.start`, see vocabulary-sql.ts), each of its tickets checked in the other
 * sets inside its statement (setSource); else the sets are looked up per ticket. A requester's list starts from its
 * tickets alone.
 */
export function ticketListSql(query: TicketQuery, columns = TICKET_COLUMNS, visible?: SqlStatement, plan: ListPlan = {}): ListStatement {
  const sets = ticketSets(query.filters);
  const others = sets.filter((_set, i) => i !== plan.start);
  // The other sets are looked up in what stays in memory first (their indexes), then in the values read at each
  // ticket's own place; a starting set's tickets in the status index before them.
  const ordered = [...others.filter(lookedUpNearby), ...others.filter((set) => !lookedUpNearby(set))];
  const start =
    plan.start === undefined || visible
      ? undefined
      : setSource(sets[plan.start], 'start', (id) => withStatus(query.filters, id, lookUp(id, ordered, 'c')));
  const search = visible || start ? searchConditions(query.filters.search) : searchSql(query.filters.search, 'page');
  // The other sets are looked up by the id read first: a starting set's (inside its statement: setSource), or, walking
  // a field's values, the value's ticket, before the ticket's row is read.
  const lookupsOn = (probed: string): Lookups => {
    const sets = start ? { joins: { sql: '', params: [] }, conditions: [] } : lookUp(probed, ordered, 'c');
    return { joins: sets.joins, conditions: [...search.conditions, ...filterConditions(query.filters), ...sets.conditions] };
  };
  const source = visible
    ? { sql: `(${visible.sql}) visible`, params: visible.params, id: 'visible.ticket_id' }
    : start
      ? { ...start, id: 'start.ticket_id' }
      : search.words && { ...search.words, id: 'w0.ticket_id' };
  const hint = indexHint(query) || (plan.walk ? ' FORCE INDEX (PRIMARY)' : '');
  const tickets = source ? `${source.sql} STRAIGHT_JOIN tickets ON tickets.id = ${source.id}` : `tickets${hint}`;
  const examined = plan.walk && plan.bound && query.page ? ` ROWS EXAMINED ${plan.bound}` : '';
  if (query.byFieldColumn)
    return byFieldSql(
      query,
      query.byFieldColumn,
      columns,
      lookupsOn,
      source && { from: tickets, params: source.params, id: source.id },
      examined,
    );
  const { joins, conditions } = lookupsOn(start ? 'start.ticket_id' : 'tickets.id');
  const from = `${tickets}${joins.sql}`;
  if (query.page?.after) conditions.push(afterCondition(query.sort, query.page.after as Array<number | string>));
  const where = whereClause(conditions);
  const order = query.sort.map(({ field, descending }) => `${SORT_COLUMNS[field].column} ${descending ? 'DESC' : 'ASC'}`).join(', ');
  const limit = query.page ? ` LIMIT ${query.page.limit + 1}${examined}` : '';
  // A page sorted by the SLA due time needs it for its cursor; the ticket's JSON never carries it (ticket-row.ts).
  const slaDue = query.sort.some((key) => key.field === 'slaDueAt') ? ', sla_due_at' : '';
  const params = [...(source?.params ?? []), ...joins.params, ...where.params];
  if ((visible || start || plan.walk) && query.page) {
    // A requester's page (or a small filter's) is sorted as ids and sort keys, and only its rows are then read whole:
    // sorting whole rows (a description is up to 2,000 characters) of thousands of tickets spills the sort to disk. A
    // walk reads the ids from its index alone, each looked up in the sets, and only the page's rows whole.
    const page = `SELECT tickets.id AS page_id FROM ${from}${where.sql} ORDER BY ${order}${limit}`;
    return {
      sql: `SELECT ${columns}${slaDue} FROM (${page}) page STRAIGHT_JOIN tickets ON tickets.id = page.page_id ORDER BY ${order}`,
      params,
    };
  }
  return { sql: `SELECT ${columns}${slaDue} FROM ${from}${where.sql} ORDER BY ${order}${limit}`, params };
}

/**
 * A list sorted by a custom field (`sort=field.<key>`): by its value, then by id in the same direction, the tickets
 * without a value last in both directions; `field_sort` is the value for the page's cursor ([value or null, id]).
 * Paged without a smaller place to start (`started`), the field's index is read in order (its values by field, then
 * ticket id), each ticket checked by key, and then, while the page has room, the tickets without a value by id. Else
 * (from a requester's tickets, a filter's set or the words of a search, or unpaged) each ticket's value is joined
 * and the matches sorted.
 */
function byFieldSql(
  query: TicketQuery,
  { fieldId, column, index }: ResolvedFieldSort,
  columns: string,
  lookupsOn: (probed: string) => Lookups,
  started: { from: string; params: unknown[]; id: string } | undefined,
  examined: string,
): ListStatement {
  const descending = query.byField?.descending ?? false;
  const direction = descending ? 'DESC' : 'ASC';
  const beyond = descending ? '<' : '>';
  const after = query.page?.after as [string | null, number] | undefined;
  const value = `s.${column}`;
  if (started || !query.page) {
    const { joins, conditions } = lookupsOn(started?.id === 'start.ticket_id' ? 'start.ticket_id' : 'tickets.id');
    const where = whereClause([
      ...conditions,
      ...(after === undefined
        ? []
        : after[0] === null
          ? [{ sql: `${value} IS NULL AND tickets.id ${beyond} ?`, params: [after[1]] }]
          : [
              {
                sql: `(${value} IS NULL OR ${value} ${beyond} ? OR (${value} = ? AND tickets.id ${beyond} ?))`,
                params: [after[0], after[0], after[1]],
              },
            ]),
    ]);
    const limit = query.page ? ` LIMIT ${query.page.limit + 1}` : '';
    return {
      sql:
        `SELECT ${columns}, ${value} AS field_sort FROM ${started?.from ?? 'tickets'}${joins.sql}` +
        ` LEFT JOIN ticket_field_values s ON s.ticket_id = tickets.id AND s.field_id = ? AND s.item = 0${where.sql}` +
        ` ORDER BY ${value} IS NULL, ${value} ${direction}, tickets.id ${direction}${limit}`,
      params: [...(started?.params ?? []), ...joins.params, fieldId, ...where.params],
    };
  }
  const pageSize = query.page.limit + 1;
  const withoutValue = (count: number, afterId?: number): SqlStatement => {
    const { joins, conditions } = lookupsOn('tickets.id');
    const where = whereClause([
      { sql: 'NOT EXISTS (SELECT 1 FROM ticket_field_values s WHERE s.ticket_id = tickets.id AND s.field_id = ?)', params: [fieldId] },
      ...(afterId === undefined ? [] : [{ sql: `tickets.id ${beyond} ?`, params: [afterId] }]),
      ...conditions,
    ]);
    return {
      sql: `SELECT ${columns}, NULL AS field_sort FROM tickets${joins.sql}${where.sql} ORDER BY tickets.id ${direction} LIMIT ${count}${examined}`,
      params: [...joins.params, ...where.params],
    };
  };
  if (after?.[0] === null) return withoutValue(pageSize, after[1]);
  // The values are read in order and each ticket looked up in the sets before its row is read.
  const { joins, conditions } = lookupsOn('s.ticket_id');
  const where = whereClause([
    { sql: 's.field_id = ? AND s.item = 0', params: [fieldId] },
    ...(after
      ? [{ sql: `(${value} ${beyond} ? OR (${value} = ? AND s.ticket_id ${beyond} ?))`, params: [after[0], after[0], after[1]] }]
      : []),
    ...conditions,
  ]);
  return {
    sql:
      `SELECT ${columns}, ${value} AS field_sort FROM ticket_field_values s FORCE INDEX (${index})${joins.sql}` +
      ` STRAIGHT_JOIN tickets ON tickets.id = s.ticket_id${where.sql} ORDER BY ${value} ${direction}, s.ticket_id ${direction} LIMIT ${pageSize}${examined}`,
    params: [...joins.params, ...where.params],
    then: (found) => withoutValue(pageSize - found),
  };
}

/** The tickets a query's filters match, as `FROM … WHERE …` for a statement that reads them all (the stats' counts). */
export function matchingTicketsSql(query: TicketQuery): { from: SqlStatement; where: SqlStatement } {
  const search = searchSql(query.filters.search, 'count');
  const where = whereClause([
    ...search.conditions,
    ...filterConditions(query.filters),
    ...ticketSets(query.filters).map((set) => inSet('tickets.id', set)),
  ]);
  const from = search.words ? `${search.words.sql} STRAIGHT_JOIN tickets ON tickets.id = w0.ticket_id` : 'tickets';
  return { from: { sql: from, params: search.words?.params ?? [] }, where };
}

/**
 * How many tickets match the filters, whatever the page. A search by words alone is counted in the word index
 * without reading a ticket (every word row has its ticket, by foreign key).
 */
export function ticketCountSql(query: TicketQuery, visible?: SqlStatement): SqlStatement {
  const sets = ticketSets(query.filters).map((set) => inSet('tickets.id', set));
  if (visible) {
    const where = whereClause([...searchConditions(query.filters.search).conditions, ...filterConditions(query.filters), ...sets]);
    // Every id of a requester's tickets is a ticket's: with nothing to check on the tickets, the ids are counted alone.
    if (where.params.length === 0 && where.sql === '')
      return { sql: `SELECT COUNT(*) AS total FROM (${visible.sql}) visible`, params: visible.params };
    return {
      sql: `SELECT COUNT(*) AS total FROM (${visible.sql}) visible STRAIGHT_JOIN tickets ON tickets.id = visible.ticket_id${where.sql}`,
      params: [...visible.params, ...where.params],
    };
  }
  const search = searchSql(query.filters.search, 'count');
  const filters = [...filterConditions(query.filters), ...sets];
  if (search.words && filters.length === 0) {
    const where = whereClause(search.conditions);
    return { sql: `SELECT COUNT(*) AS total FROM ${search.words.sql}${where.sql}`, params: [...search.words.params, ...where.params] };
  }
  const terms = query.filters.search;
  if (!search.words && terms && filters.length === 0) {
    const [first, ...others] = terms;
    const where = whereClause([
      { sql: 'w0.word LIKE ?', params: [likePrefix(first.word)] },
      ...others.map((term) => inWords('w0.ticket_id', term)),
    ]);
    return { sql: `SELECT COUNT(DISTINCT w0.ticket_id) AS total FROM ticket_words w0${where.sql}`, params: where.params };
  }
  const { from, where } = matchingTicketsSql(query);
  return { sql: `SELECT COUNT(*) AS total FROM ${from.sql}${where.sql}`, params: [...from.params, ...where.params] };
}

/**
 * The search of `q` in the word index (ticket_words, primary key (word, ticket_id)). With at least one whole word,
 * the statement reads from the index: w0 is the first whole word, every other whole word is joined on the same
 * ticket by its primary key, and the ticket comes last by id (STRAIGHT_JOIN: for a page by id the optimizer
 * would otherwise walk the tickets in id order and look each one up in the words, which reads the whole table
 * for a word of a few tickets, or of old ones only). The optimizer starts from the word with the fewest
 * tickets (its range estimate) and, as all of them equal tickets.id, reads that word's tickets in id order:
 * a page sorted by id stops after limit + 1 matches, without a sort (test/tickets/ticket-query-plans.e2e-spec.ts).
 * Other sorts read every match and sort them; filters other than `q` are checked on each matching ticket.
 * A prefix word (`print*`) is then checked per candidate ticket on the page (its words by (ticket_id, word)),
 * and by a semi-join when counting. A search of prefixes only has no word to read in ticket order: it collects
 * the tickets of each prefix (as many as the prefix matches) and sorts them.
 */
function searchSql(terms: SearchTerm[] | null | undefined, purpose: 'page' | 'count'): { words?: SqlStatement; conditions: Condition[] } {
  if (terms === undefined) return { conditions: [] };
  if (terms === null) return { conditions: [{ sql: 'FALSE', params: [] }] };
  const exact = terms.filter((term) => !term.prefix);
  const prefixes = terms.filter((term) => term.prefix);
  if (exact.length === 0) return { conditions: prefixes.map((term) => inWords('tickets.id', term)) };
  const joins = exact
    .slice(1)
    .map((_term, i) => ` JOIN ticket_words w${i + 1} ON w${i + 1}.word = ? AND w${i + 1}.ticket_id = w0.ticket_id`);
  const conditions: Condition[] = [{ sql: 'w0.word = ?', params: [exact[0].word] }];
  for (const term of prefixes) {
    conditions.push(
      purpose === 'page'
        ? // A scalar subquery, so that it is checked on each ticket read in order (a semi-join would collect every ticket of the prefix first).
          {
            sql: '(SELECT 1 FROM ticket_words p WHERE p.ticket_id = w0.ticket_id AND p.word LIKE ? LIMIT 1) IS NOT NULL',
            params: [likePrefix(term.word)],
          }
        : inWords('w0.ticket_id', term),
    );
  }
  return { words: { sql: `ticket_words w0${joins.join('')}`, params: exact.slice(1).map((term) => term.word) }, conditions };
}

/** The search as a condition on each ticket, for a list that starts from a requester's tickets rather than from the words. */
function searchConditions(terms: SearchTerm[] | null | undefined): { words?: undefined; conditions: Condition[] } {
  if (terms === undefined) return { conditions: [] };
  if (terms === null) return { conditions: [{ sql: 'FALSE', params: [] }] };
  return { conditions: terms.map((term) => inWords('tickets.id', term)) };
}

function inWords(column: string, term: SearchTerm): Condition {
  return term.prefix
    ? { sql: `${column} IN (SELECT ticket_id FROM ticket_words WHERE word LIKE ?)`, params: [likePrefix(term.word)] }
    : { sql: `${column} IN (SELECT ticket_id FROM ticket_words WHERE word = ?)`, params: [term.word] };
}

/**
 * A filter by one status as a look-up of each ticket `id` in the status index (its entries are (status, id), pages that
 * stay in memory), joined before the `lookups`, for a starting set's tickets: most of a large set's fall away before
 * their rows are read from the table, and the status index is the cheapest look-up (its key the shortest). Not for
 * several statuses: the server reads such a look-up as a range of each status, not a key.
 */
function withStatus(filters: TicketFilters, id: string, lookups: Lookups): Lookups {
  if (filters.statuses.length !== 1) return lookups;
  return {
    joins: {
      sql: ` STRAIGHT_JOIN tickets st FORCE INDEX (idx_tickets_status) ON st.status = ? AND st.id = ${id}${lookups.joins.sql}`,
      params: [...filters.statuses, ...lookups.joins.params],
    },
    conditions: lookups.conditions,
  };
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
  time('sla_due_at', '<', filters.slaDueBefore);
  if (filters.slaBreached !== undefined) conditions.push({ sql: 'sla_breached = ?', params: [filters.slaBreached ? 1 : 0] });
  if (filters.linkedTo !== undefined || filters.linkType !== undefined) conditions.push(linkCondition(filters.linkedTo, filters.linkType));
  return conditions;
}

/**
 * Linked to a ticket, by a type as the listed ticket sees it, or both: the listed ticket is a link's `from` (its kind
 * as named), its `to` (the inverse), or either (`relates-to`, or any type). A ticket's links are few: they are read
 * first, by (from_id, …) or (to_id, kind), and their tickets joined.
 */
function linkCondition(linkedTo: number | undefined, type: LinkType | undefined): Condition {
  const side = type && typeSide(type);
  const kind = side ? { sql: ' AND kind = ?', params: [side.kind] } : { sql: '', params: [] };
  if (linkedTo !== undefined && (!side || side.listedIs === 'either')) {
    // Either side: the other end of each link of `linkedTo` (by the unique key's from_id and by (to_id, kind)), in one
    // subquery, which stays a semi-join (one in each branch of an OR would not).
    return {
      sql: `tickets.id IN (SELECT IF(from_id = ?, to_id, from_id) FROM ticket_links WHERE (from_id = ? OR to_id = ?)${kind.sql})`,
      params: [linkedTo, linkedTo, linkedTo, ...kind.params],
    };
  }
  const branches = (['from', 'to'] as const)
    .filter((listed) => !side || side.listedIs === 'either' || side.listedIs === listed)
    .map((listed) => {
      const other =
        linkedTo === undefined
          ? { sql: '', params: [] }
          : { sql: ` AND ${listed === 'from' ? 'to_id' : 'from_id'} = ?`, params: [linkedTo] };
      return { sql: `SELECT ${listed}_id FROM ticket_links WHERE TRUE${other.sql}${kind.sql}`, params: [...other.params, ...kind.params] };
    });
  return { sql: `tickets.id IN (${branches.map((b) => b.sql).join(' UNION ')})`, params: branches.flatMap((b) => b.params) };
}

/**
 * Keyset condition "sorts after this position", written out for any mix of directions as
 * `k1 > v1 OR (k1 = v1 AND k2 > v2) OR ...` (with < for a descending key). An enum key compares by its
 * position in the enum, so "after" is the list of values that sort after it, never a string comparison.
 */
function afterCondition(sort: readonly SortKey[], position: ReadonlyArray<number | string>): Condition {
  const branches: Condition[] = [];
  for (let i = 0; i < sort.length; i++) {
    const equalBefore = sort
      .slice(0, i)
      .map((key, j) => ({ sql: `${SORT_COLUMNS[key.field].column} = ?`, params: [bound(key, position[j])] }));
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

const VOCABULARY_FILTERS: ReadonlyArray<keyof TicketFilters> = ['tags', 'anyTags', 'fields', 'fieldConditions'];

function indexHint(query: TicketQuery): string {
  const { filters, sort } = query;
  // Tag and field filters are looked up per ticket read from the index (ticketListSql).
  const used = (Object.keys(filters) as Array<keyof TicketFilters>).filter((name) => {
    if (VOCABULARY_FILTERS.includes(name)) return false;
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

/**
 * Whether a list with tag or field filters can be walked in its order without sorting: a queue's index or, sorted by
 * id alone, the primary key (which the walk then names), or a custom field's values; never with a search, whose words
 * lead instead. A walk that had to sort would be stopped by its ROWS EXAMINED bound mid-sort, which MariaDB answers
 * with an error rather than a short result.
 */
export function walkable(query: TicketQuery): boolean {
  if (query.filters.search !== undefined) return false;
  if (query.byField) return true;
  return indexHint(query) !== '' || (query.sort.length === 1 && query.sort[0].field === 'id');
}
