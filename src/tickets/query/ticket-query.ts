import { ValidationFailedException } from '../../common/errors/validation-failed.exception.js';
import { codePointLength } from '../../common/validation/spring-constraints.js';
import { TicketPriority } from '../ticket-priority.enum.js';
import { TicketStatus } from '../ticket-status.enum.js';
import { TicketStatusFilterPipe } from '../ticket-status-filter.pipe.js';
import { parseInstant } from './query-instant.js';
import { type QueryDialect, QueryParameters } from '../../common/paging/query-parameters.js';
import { queryFingerprint } from '../../common/paging/cursor.js';
import { readLimit } from '../../common/paging/page-limit.js';
import { type CursorPosition, decodeCursor } from './ticket-cursor.js';
import { type SearchTerm, searchTerms } from './ticket-search.js';
import { DEFAULT_SORT, type FieldSortKey, parseSort, sortFields, type SortKey } from './ticket-sort.js';
import { canonicalTags, TAG_RULE, TAGS_MAX } from '../../tags/tags.js';
import type { FieldFilter, ResolvedFieldFilter, ResolvedFieldSort } from '../../fields/field-filters.js';
import { LINK_TYPES, type LinkType } from '../links/links.js';

export interface TicketFilters {
  statuses: TicketStatus[];
  priorities: TicketPriority[];
  requesterEmail?: string;
  assignedTo?: string;
  /** Millisecond timestamps; after is inclusive, before is exclusive. */
  createdAfter?: number;
  createdBefore?: number;
  updatedAfter?: number;
  updatedBefore?: number;
  /** The words of `q` (every one required); null when `q` held no searchable word, so that nothing matches. */
  search?: SearchTerm[] | null;
  /** SLA (docs/sla.md): whether a clock of the ticket ever breached. */
  slaBreached?: boolean;
  /** SLA: the next breach time of its running clocks is before this (exclusive); tickets without one never match. */
  slaDueBefore?: number;
  /** Tags the ticket carries, every one of them (`tags`) or at least one (`anyTags`); canonical and sorted. */
  tags?: string[];
  anyTags?: string[];
  /** Custom fields (`field.<key>`, `field.<key>.gte`, `field.<key>.lt`), as given: the service checks them by their definitions. */
  fields?: FieldFilter[];
  /** The same, once checked by the definitions (TicketsService): what the statement compares. */
  fieldConditions?: ResolvedFieldFilter[];
  /** Links (docs/api.md#links): linked to this ticket, and/or by a link of this type as the listed ticket sees it. */
  linkedTo?: number;
  linkType?: LinkType;
}

/** `field.<key>` and `field.<key>.gte` / `.lt`. */
const FIELD_PARAMETER = /^field\.([a-z][a-z0-9_]{0,63})(?:\.(gte|lt))?$/;

export interface TicketPageRequest {
  limit: number;
  /** Where the page starts: after this position (sort key values, then id). */
  after?: CursorPosition;
  withTotal: boolean;
}

/** A list request, decided once for both API versions: what to match, in which order, and which page. */
export interface TicketQuery {
  filters: TicketFilters;
  /** Always ends with `id`, so the order is total. */
  sort: SortKey[];
  /** `sort=field.<key>`: the custom field sorted by, before `sort`'s id (then `sort` is that id alone). */
  byField?: FieldSortKey;
  /** The same, once checked by its definition (TicketsService): the values the statement reads in order. */
  byFieldColumn?: ResolvedFieldSort;
  /** Identifies the filters and sort, so a cursor can only continue the query it came from. */
  fingerprint: string;
  /** Absent: every match, unpaged (v1 without `limit`). */
  page?: TicketPageRequest;
  /** `q` as given, for an answer that names it (a prefix too broad to search, see search-prefix-bound.ts). */
  searchText?: string;
}

/** The list parameters with SLA on; with it off, without SLA_PARAMETERS (v1 ignores them and v2 refuses them, as before SLA). */
export const QUERY_PARAMETERS = [
  'status',
  'priority',
  'requesterEmail',
  'assignedTo',
  'createdAfter',
  'createdBefore',
  'updatedAfter',
  'updatedBefore',
  'q',
  'slaBreached',
  'slaDueBefore',
  'tags',
  'anyTags',
  'linkedTo',
  'linkType',
  'sort',
  'limit',
  'cursor',
  'total',
] as const;
const SLA_PARAMETERS: readonly string[] = ['slaBreached', 'slaDueBefore'];

export const SEARCH_MAX_LENGTH = 200;
/**
 * Prefix words (`print*`) one search may hold. Each is checked against the word index before the search runs and
 * read as a range of the index when it does (see search-prefix-bound.ts): a handful keeps both cheap, and 200
 * characters of `q` would otherwise allow 40.
 */
export const SEARCH_MAX_PREFIXES = 8;
const DATE_FILTERS = ['createdAfter', 'createdBefore', 'updatedAfter', 'updatedBefore'] as const;

/**
 * Parses a list request's query parameters. Every bad value is reported at once as a validation failure of
 * `ticketQuery` (400). Version differences: v1 keeps its original rules (one value per parameter, `status`
 * wins over `requesterEmail`, an unknown status answered as before, unknown parameters ignored, unpaged
 * without `limit`); v2 takes several statuses and priorities, ANDs every filter, refuses unknown
 * parameters and always pages.
 */
export function parseTicketQuery(raw: Record<string, unknown>, dialect: QueryDialect, sla = false): TicketQuery {
  // v1 answers an unknown status exactly as it always has, before anything else is looked at.
  if (dialect === 'v1') new TicketStatusFilterPipe().transform(raw.status);
  const known = sla ? QUERY_PARAMETERS : QUERY_PARAMETERS.filter((name) => !SLA_PARAMETERS.includes(name));
  const fieldParameters = Object.keys(raw).filter((name) => FIELD_PARAMETER.test(name));
  const params = new QueryParameters(raw, dialect, [...known, ...fieldParameters]);
  const { filters, searchText } = readFilters(params, sla);
  if (dialect === 'v1' && filters.statuses.length > 0) delete filters.requesterEmail;
  const sortText = params.list('sort').join(',');
  const { keys: sort, byField } = sortText === '' ? { keys: [...DEFAULT_SORT] } : readSort(params, sortText, sla);
  const fingerprint = queryFingerprint({ filters: normalised(filters), sort, ...(byField && { byField }) });
  const page = readPage(params, fingerprint, sort, byField);
  if (params.problems.length > 0) throw new ValidationFailedException('ticketQuery', params.fieldErrors());
  return {
    filters,
    sort,
    ...(byField && { byField }),
    fingerprint,
    ...(page && { page }),
    ...(searchText !== undefined && { searchText }),
  };
}

function readFilters(params: QueryParameters, sla: boolean): { filters: TicketFilters; searchText?: string } {
  const filters: TicketFilters = {
    statuses: readEnums(params, 'status', TicketStatus, 'TicketStatus'),
    priorities: readEnums(params, 'priority', TicketPriority, 'TicketPriority'),
  };
  const requesterEmail = params.single('requesterEmail');
  if (requesterEmail !== undefined) filters.requesterEmail = requesterEmail;
  const assignedTo = params.single('assignedTo');
  if (assignedTo !== undefined) filters.assignedTo = assignedTo;
  for (const name of sla ? [...DATE_FILTERS, 'slaDueBefore' as const] : DATE_FILTERS) {
    const text = params.single(name);
    if (text === undefined) continue;
    const instant = parseInstant(text);
    if (instant === undefined) {
      params.problem(
        name,
        'typeMismatch',
        'java.time.Instant',
        "Failed to convert value to required type 'java.time.Instant'; expected an ISO-8601 date-time with Z or an offset, e.g. 2026-11-22T20:37:14Z",
        text,
      );
    } else {
      filters[name] = instant;
    }
  }
  for (const name of ['tags', 'anyTags'] as const) {
    const items = params.commaList(name);
    if (items.length === 0) continue;
    const tags = canonicalTags(items);
    if (tags !== undefined && tags.length > TAGS_MAX) {
      // No ticket carries more: a longer list could only make a costly query.
      params.problem(name, 'Size', 'java.lang.String', `At most ${TAGS_MAX} tags`, items.join(','), [TAGS_MAX, 1]);
    } else if (tags === undefined) {
      params.problem(name, 'typeMismatch', 'java.lang.String', `Tags separated by commas, each of ${TAG_RULE}`, items.join(','));
    } else {
      filters[name] = tags;
    }
  }
  const linkedTo = params.single('linkedTo');
  if (linkedTo !== undefined) {
    if (/^[1-9]\d{0,15}$/.test(linkedTo) && Number.isSafeInteger(Number(linkedTo))) filters.linkedTo = Number(linkedTo);
    else
      params.problem(
        'linkedTo',
        'typeMismatch',
        'java.lang.Long',
        "Failed to convert value to required type 'java.lang.Long'; a ticket id",
        linkedTo,
      );
  }
  const linkType = params.single('linkType');
  if (linkType !== undefined) {
    if ((LINK_TYPES as readonly string[]).includes(linkType)) filters.linkType = linkType as LinkType;
    else {
      params.problem(
        'linkType',
        'typeMismatch',
        'LinkType',
        `Failed to convert value to required type 'LinkType'; accepted values: [${LINK_TYPES.join(', ')}]`,
        linkType,
      );
    }
  }
  const fields = Object.keys(params.raw)
    .sort()
    .flatMap((name): FieldFilter[] => {
      const [, key, op] = FIELD_PARAMETER.exec(name) ?? [];
      if (!key) return [];
      const values = op ? [params.single(name)].filter((value) => value !== undefined) : params.commaList(name);
      return values.length > 0 ? [{ key, op: (op ?? 'in') as FieldFilter['op'], values }] : [];
    });
  if (fields.length > 0) filters.fields = fields;
  const slaBreached = sla ? params.single('slaBreached') : undefined;
  if (slaBreached === 'true' || slaBreached === 'false') {
    filters.slaBreached = slaBreached === 'true';
  } else if (slaBreached !== undefined) {
    params.problem(
      'slaBreached',
      'typeMismatch',
      'java.lang.Boolean',
      "Failed to convert value to required type 'java.lang.Boolean'; accepted values: [true, false]",
      slaBreached,
    );
  }
  const q = params.single('q');
  if (q !== undefined && q.trim() !== '') {
    if (codePointLength(q) > SEARCH_MAX_LENGTH) {
      params.problem('q', 'Size', 'java.lang.String', `size must be between 0 and ${SEARCH_MAX_LENGTH}`, q, [SEARCH_MAX_LENGTH, 0]);
    } else {
      const terms = searchTerms(q);
      filters.search = terms.length > 0 ? terms : null;
      const prefixes = terms.filter((term) => term.prefix).length;
      if (prefixes > SEARCH_MAX_PREFIXES) {
        params.problem(
          'q',
          'SearchTooBroad',
          'java.lang.String',
          `At most ${SEARCH_MAX_PREFIXES} prefix words (word*) in one search; this one has ${prefixes}`,
          q,
          [SEARCH_MAX_PREFIXES],
        );
      }
    }
    return { filters, searchText: q };
  }
  return { filters };
}

function readEnums<T extends string>(params: QueryParameters, name: string, values: Record<string, T>, javaType: string): T[] {
  const accepted = Object.values(values);
  const items = params.list(name);
  for (const item of items.filter((value) => !(accepted as string[]).includes(value))) {
    params.problem(
      name,
      'typeMismatch',
      javaType,
      `Failed to convert value to required type '${javaType}'; accepted values: [${accepted.join(', ')}]`,
      item,
    );
  }
  // Sorted and without repeats: the same set of values is the same query, whatever order it was given in.
  return accepted.filter((value) => items.includes(value));
}

function readSort(params: QueryParameters, text: string, sla: boolean): { keys: SortKey[]; byField?: FieldSortKey } {
  const { keys, byField, problems } = parseSort(text, sla);
  for (const problem of problems) {
    const message =
      problem.kind === 'unknown'
        ? `Unknown sort field; accepted: ${sortFields(sla).join(', ')}, each optionally prefixed with - for descending order; or a custom field alone, field.<key>`
        : problem.kind === 'repeated'
          ? `The sort field ${problem.field} is given more than once`
          : `A custom field sorts alone (its ties by id): sort=${problem.field} or sort=-${problem.field}`;
    params.problem('sort', 'typeMismatch', 'java.lang.String', message, problem.kind === 'unknown' ? problem.token : text);
  }
  return { keys, ...(byField && { byField }) };
}

function readPage(params: QueryParameters, fingerprint: string, sort: SortKey[], byField?: FieldSortKey): TicketPageRequest | undefined {
  const limitText = params.single('limit');
  const cursor = params.single('cursor');
  const totalText = params.single('total');
  const limit = readLimit(params, limitText);
  if (totalText !== undefined && totalText !== 'true' && totalText !== 'false') {
    params.problem(
      'total',
      'typeMismatch',
      'java.lang.Boolean',
      "Failed to convert value to required type 'java.lang.Boolean'; accepted values: [true, false]",
      totalText,
    );
  }
  let after: CursorPosition | undefined;
  if (cursor !== undefined) {
    if (limitText === undefined && params.dialect === 'v1') {
      params.problem('cursor', 'InvalidCursor', 'java.lang.String', 'A cursor continues a paged list: give limit with it', cursor);
    } else if (params.problems.length === 0) {
      const decoded = decodeCursor(cursor, fingerprint, sort, byField);
      if (decoded === 'unreadable') {
        params.problem('cursor', 'InvalidCursor', 'java.lang.String', 'Not a cursor this service issued, or one that was altered', cursor);
      } else if (decoded === 'other-query') {
        params.problem(
          'cursor',
          'InvalidCursor',
          'java.lang.String',
          'This cursor belongs to a list with other filters or another sort',
          cursor,
        );
      } else {
        after = decoded;
      }
    }
  }
  if (limit === undefined) return undefined;
  return { limit, withTotal: totalText !== 'false', ...(after && { after }) };
}

/** Filters as a fingerprint sees them: text matched case-insensitively is compared in lower case. */
function normalised(filters: TicketFilters): TicketFilters {
  return { ...filters, requesterEmail: filters.requesterEmail?.toLowerCase(), assignedTo: filters.assignedTo?.toLowerCase() };
}
