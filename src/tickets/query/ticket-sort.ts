import { TicketPriority } from '../ticket-priority.enum.js';
import { TicketStatus } from '../ticket-status.enum.js';

export const SORT_FIELDS = ['id', 'createdAt', 'updatedAt', 'priority', 'status', 'slaDueAt'] as const;
export type SortField = (typeof SORT_FIELDS)[number];
/** The fields a list accepts: slaDueAt only when SLA is on, so that with it off lists answer exactly as before it existed. */
export const sortFields = (sla: boolean): readonly SortField[] => (sla ? SORT_FIELDS : SORT_FIELDS.filter((field) => field !== 'slaDueAt'));

export interface SortKey {
  field: SortField;
  descending: boolean;
}

/** The ticket order when none is asked for: ascending id (decision 12). */
export const DEFAULT_SORT: readonly SortKey[] = [{ field: 'id', descending: false }];

/**
 * How each sort field is stored. `priority` and `status` are ENUM columns, which MariaDB orders by the
 * position of the value in the column's definition, not alphabetically: LOW < MEDIUM < HIGH < CRITICAL and
 * OPEN < IN_PROGRESS < WAITING_ON_CUSTOMER < RESOLVED < CLOSED. So ORDER BY on the column itself sorts by
 * severity and by workflow, and an index on it is read in that order.
 */
export const SORT_COLUMNS: Record<SortField, { column: string; kind: 'number' | 'time' | 'enum'; values?: readonly string[] }> = {
  id: { column: 'id', kind: 'number' },
  createdAt: { column: 'created_at', kind: 'time' },
  updatedAt: { column: 'updated_at', kind: 'time' },
  priority: { column: 'priority', kind: 'enum', values: Object.values(TicketPriority) },
  status: { column: 'status', kind: 'enum', values: Object.values(TicketStatus) },
  // The next SLA breach time; a ticket without a running clock holds the end of time, so it sorts last (docs/sla.md).
  slaDueAt: { column: 'sla_due_at', kind: 'time' },
};

/**
 * `sort=field.<key>` (or `-field.<key>`): by a custom field's value, then by id in the same direction, tickets without a
 * value last in both directions (docs/api.md#custom-fields). It sorts alone: its order is read from the field's index.
 */
export interface FieldSortKey {
  key: string;
  descending: boolean;
}

const FIELD_SORT = /^field\.([a-z][a-z0-9_]{0,63})$/;

export type SortProblem = { kind: 'unknown'; token: string } | { kind: 'repeated'; field: string } | { kind: 'field-alone'; field: string };

/**
 * Parses `id,-updatedAt,...` into sort keys that always end with `id`, the tie-breaker that makes the
 * order total (and a cursor position exact). The tie-breaker runs in the direction of the key before it, so
 * `-updatedAt` is read as `updated_at DESC, id DESC`: one direction, which an index can serve by reading
 * backwards. Keys after `id` could never decide anything and are dropped.
 */
export function parseSort(value: string, sla = false): { keys: SortKey[]; byField?: FieldSortKey; problems: SortProblem[] } {
  const fields: readonly string[] = sortFields(sla);
  const keys: SortKey[] = [];
  const problems: SortProblem[] = [];
  const tokens = value.split(',');
  for (const token of tokens) {
    const descending = token.startsWith('-');
    const field = descending ? token.slice(1) : token;
    const custom = FIELD_SORT.exec(field);
    if (custom && tokens.length > 1) {
      problems.push({ kind: 'field-alone', field });
    } else if (custom) {
      return { keys: [{ field: 'id', descending }], byField: { key: custom[1], descending }, problems };
    } else if (!fields.includes(field)) {
      problems.push({ kind: 'unknown', token });
    } else if (keys.some((key) => key.field === field)) {
      problems.push({ kind: 'repeated', field });
    } else {
      keys.push({ field: field as SortField, descending });
    }
  }
  const idAt = keys.findIndex((key) => key.field === 'id');
  if (idAt >= 0) return { keys: keys.slice(0, idAt + 1), problems };
  return { keys: [...keys, { field: 'id', descending: keys.at(-1)?.descending ?? false }], problems };
}
