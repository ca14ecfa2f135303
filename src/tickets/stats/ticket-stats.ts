import { ValidationFailedException } from '../../common/errors/validation-failed.exception.js';
import { springFieldError } from '../../common/errors/spring-field-error.js';
import type { ResolvedFieldFilter } from '../../fields/field-filters.js';
import { isTimeZone, TIME_UNITS, type TimeUnit } from './time-buckets.js';

/**
 * What tickets are counted by (`groupBy`): one of their columns, a tag, the domain of the requester's address, a
 * field's value, or the day, week or month of their creation or resolution (`createdAt:week`).
 */
export type GroupKey =
  | { kind: 'status' | 'priority' | 'assignedTo' | 'requesterDomain' | 'tag'; name: string }
  | { kind: 'field'; name: string; key: string }
  | { kind: 'time'; name: string; column: 'created_at' | 'resolved_at'; unit: TimeUnit };

export const GROUP_KEYS_MAX = 2;
/** The groups an answer holds at most, the largest: a free text's values could otherwise be as many as the tickets. */
export const STATS_GROUPS_MAX = 1000;
const COLUMNS = ['status', 'priority', 'assignedTo', 'requesterDomain', 'tag'] as const;
const FIELD = /^field\.([a-z][a-z0-9_]{0,63})$/;
const TIME = new RegExp(`^(createdAt|resolvedAt):(${TIME_UNITS.join('|')})$`);

/**
 * The most matches a count by a tag, a field's value or a time reads (each match joined or bucketed): about a second on
 * the 2-core development machine (docs/performance.md#numbers-a-desk-reports-on); the ticket columns count any number.
 */
export const STATS_READ_MAX = 50_000;

/** The list parameters a count has no use for: it counts every match, in no order. */
export const PAGE_PARAMETERS = ['sort', 'limit', 'cursor', 'total'] as const;

/** `groupBy=status,tag`: one or two keys, each once, given once (400 naming `groupBy` otherwise). */
export function parseGroupBy(given: unknown): GroupKey[] {
  if (Array.isArray(given)) throw statsProblem('groupBy', 'Give groupBy once, its keys separated by commas', given.join(','));
  const text = typeof given === 'string' ? given : undefined;
  const names = (text ?? '').split(',').map((name) => name.trim());
  const keys: GroupKey[] = [];
  for (const name of names) {
    const field = FIELD.exec(name);
    const time = TIME.exec(name);
    if ((COLUMNS as readonly string[]).includes(name)) keys.push({ kind: name as (typeof COLUMNS)[number], name });
    else if (field) keys.push({ kind: 'field', name, key: field[1] });
    else if (time)
      keys.push({ kind: 'time', name, column: time[1] === 'createdAt' ? 'created_at' : 'resolved_at', unit: time[2] as TimeUnit });
    else
      throw groupByProblem(
        text,
        `Group by ${GROUP_KEYS_MAX === 2 ? 'one or two' : GROUP_KEYS_MAX} of ${COLUMNS.join(', ')}, field.<key>, ` +
          `createdAt:<unit> or resolvedAt:<unit> (unit: ${TIME_UNITS.join(', ')})`,
      );
  }
  if (keys.filter((key) => key.kind === 'time').length > 1) throw groupByProblem(text, 'At most one group key of time');
  if (keys.length > GROUP_KEYS_MAX) throw groupByProblem(text, `At most ${GROUP_KEYS_MAX} group keys`);
  if (new Set(names).size !== names.length) throw groupByProblem(text, 'A group key is given more than once');
  return keys;
}

/** `zone=Europe/Berlin`: the IANA time zone a time key's days, weeks and months are in; UTC when absent. */
export function parseZone(given: unknown): string {
  if (given === undefined) return 'UTC';
  if (typeof given !== 'string' || !isTimeZone(given)) {
    throw statsProblem('zone', 'An IANA time zone, such as Europe/Berlin or UTC', Array.isArray(given) ? given.join(',') : String(given));
  }
  return given;
}

export function groupByProblem(text: string | undefined, message: string): ValidationFailedException {
  return statsProblem('groupBy', message, text ?? null);
}

/** A 400 naming a parameter of the stats. */
export function statsProblem(parameter: string, message: string, rejected: string | null): ValidationFailedException {
  return queryProblem('statsQuery', parameter, message, rejected);
}

/** A 400 naming one query parameter of a request that takes the list's filters (the stats' `statsQuery`, the export's `exportQuery`). */
export function queryProblem(objectName: string, parameter: string, message: string, rejected: string | null): ValidationFailedException {
  return new ValidationFailedException(objectName, [
    springFieldError(objectName, parameter, 'typeMismatch', 'java.lang.String', [], message, rejected),
  ]);
}

/**
 * The column or join each key reads, as `g<i>`: a ticket is counted once per tag it carries (and once, as `null`,
 * without any), once per item of a multi_enum; a field's value is a text, option or boolean (numbers and dates are
 * ranges, which `field.<key>.gte`/`.lt` count); a time, the number of the bucket it falls in (`INTERVAL` over the
 * buckets' starts: 1 for the first, -1 without a time), as the database compares DATETIMEs stored in UTC with numbers.
 * Groups come largest first; with a time key, in time order first (those without a time last).
 */
export interface GroupSql {
  selects: string;
  /** The parameters of `selects`, which come before the FROM's. */
  selectParams: unknown[];
  joins: string;
  /** The parameters of `joins`. */
  params: unknown[];
  groups: string;
  order: string;
}

export function groupSql(
  keys: readonly GroupKey[],
  fields: ReadonlyMap<string, Pick<ResolvedFieldFilter, 'fieldId' | 'column'>>,
  bucketStarts: readonly number[] = [],
): GroupSql {
  const selects: string[] = [];
  const joins: string[] = [];
  const selectParams: unknown[] = [];
  const params: unknown[] = [];
  keys.forEach((key, i) => {
    const alias = `g${i}`;
    switch (key.kind) {
      case 'status':
        selects.push(`tickets.status AS ${alias}`);
        break;
      case 'priority':
        selects.push(`tickets.priority AS ${alias}`);
        break;
      case 'assignedTo':
        selects.push(`tickets.assigned_to AS ${alias}`);
        break;
      case 'requesterDomain':
        selects.push(`LOWER(SUBSTRING_INDEX(tickets.requester_email, '@', -1)) AS ${alias}`);
        break;
      case 'tag':
        joins.push(` LEFT JOIN ticket_tags t${i} ON t${i}.ticket_id = tickets.id`);
        selects.push(`t${i}.tag AS ${alias}`);
        break;
      case 'field': {
        const field = fields.get(key.key)!;
        joins.push(` LEFT JOIN ticket_field_values f${i} ON f${i}.ticket_id = tickets.id AND f${i}.field_id = ?`);
        params.push(field.fieldId);
        selects.push(`f${i}.${field.column} AS ${alias}`);
        break;
      }
      case 'time':
        // No bucket: no match has the time (none resolved), and every one is in the group without it.
        if (bucketStarts.length === 0) selects.push(`-1 AS ${alias}`);
        else selects.push(`INTERVAL(tickets.${key.column} + 0, ${bucketStarts.map(() => '?').join(', ')}) AS ${alias}`);
        selectParams.push(...bucketStarts);
        break;
    }
  });
  const groups = keys.map((_key, i) => `g${i}`).join(', ');
  const time = keys.findIndex((key) => key.kind === 'time');
  return {
    selects: selects.join(', '),
    joins: joins.join(''),
    selectParams,
    params,
    groups,
    order: `${time >= 0 ? `g${time} < 1, g${time}, ` : ''}count DESC, ${groups}`,
  };
}
