import type { StoredDefinition } from './field-definitions.repository.js';
import { FieldValuesRepository } from './field-values.repository.js';
import { isIsoDate, type ValueProblem } from './field-values.js';

/** A filter by a custom field's value, as a list request gives it: any of `values` (`in`), or from (`gte`) or before (`lt`) one. */
export interface FieldFilter {
  key: string;
  op: 'in' | 'gte' | 'lt';
  values: string[];
}

/** A list filter by a custom field, checked by its definition: the column its values are in and the values to compare. */
export interface ResolvedFieldFilter {
  fieldId: number;
  column: string;
  op: FieldFilter['op'];
  values: Array<string | number>;
  /** A text field's values may be longer than the 255 characters its index holds (text_sort): the whole value is compared too. */
  long?: boolean;
}

/** A list sorted by a custom field (`sort=field.<key>`): the column of its values in order, and that column's index by field. */
export interface ResolvedFieldSort {
  fieldId: number;
  column: 'text_sort' | 'number_value' | 'date_value';
  index: string;
}

const SORT_INDEX = {
  text_sort: 'idx_field_values_text_sort',
  number_value: 'idx_field_values_number',
  date_value: 'idx_field_values_date',
} as const;

/**
 * The custom field a list sorts by, checked by the definitions: text, enum and boolean by their first 255 characters
 * (false before true), a multi_enum by its first item in the options' order, numbers and dates by value.
 */
export function resolveFieldSort(
  definitions: readonly StoredDefinition[],
  sort: { key: string; descending: boolean },
): { resolved?: ResolvedFieldSort; problems: ValueProblem[] } {
  const definition = definitions.find((candidate) => candidate.key === sort.key);
  if (!definition) {
    const defined = definitions.map((candidate) => candidate.key).join(', ') || 'none';
    return {
      problems: [
        { field: 'sort', message: `Unknown custom field; defined: ${defined}`, rejected: `${sort.descending ? '-' : ''}field.${sort.key}` },
      ],
    };
  }
  const stored = FieldValuesRepository.column(definition);
  const column = stored === 'text_value' ? 'text_sort' : (stored as 'number_value' | 'date_value');
  return { resolved: { fieldId: definition.id, column, index: SORT_INDEX[column] }, problems: [] };
}

/**
 * The list filters by custom fields, checked by the definitions: `field.<key>=a,b` (any of) for text, enum, boolean and
 * multi_enum; `field.<key>.gte=` and `.lt=` for number and date. An unknown field, a filter its type does not take, or a
 * value it can never hold is a problem naming the parameter.
 */
export function resolveFieldFilters(
  definitions: readonly StoredDefinition[],
  filters: readonly FieldFilter[],
): { resolved: ResolvedFieldFilter[]; problems: ValueProblem[] } {
  const resolved: ResolvedFieldFilter[] = [];
  const problems: ValueProblem[] = [];
  for (const filter of filters) {
    const name = filter.op === 'in' ? `field.${filter.key}` : `field.${filter.key}.${filter.op}`;
    const problem = (message: string) => problems.push({ field: name, message, rejected: filter.values.join(',') });
    const definition = definitions.find((candidate) => candidate.key === filter.key);
    if (!definition) {
      problem(`Unknown custom field; defined: ${definitions.map((candidate) => candidate.key).join(', ') || 'none'}`);
      continue;
    }
    const ranged = definition.type === 'number' || definition.type === 'date';
    if (ranged !== (filter.op !== 'in')) {
      problem(
        ranged
          ? `A ${definition.type} field is filtered by field.${filter.key}.gte and .lt`
          : `A ${definition.type} field is filtered by field.${filter.key}=a,b`,
      );
      continue;
    }
    let values: Array<string | number> = filter.values;
    if (definition.type === 'number') {
      values = filter.values.map(Number);
      if (values.some((value) => !Number.isFinite(value) || filter.values.some((text) => text.trim() === ''))) {
        problem('must be a number');
        continue;
      }
    } else if (definition.type === 'date') {
      if (!filter.values.every(isIsoDate)) {
        problem('must be a date, YYYY-MM-DD');
        continue;
      }
    } else if (definition.type === 'boolean') {
      if (!filter.values.every((value) => value === 'true' || value === 'false')) {
        problem('must be true or false');
        continue;
      }
    } else if (definition.options && !filter.values.every((value) => definition.options!.includes(value))) {
      problem(`must be of ${definition.options.join(', ')}`);
      continue;
    }
    resolved.push({
      fieldId: definition.id,
      column: FieldValuesRepository.column(definition),
      op: filter.op,
      values,
      ...(definition.type === 'text' && { long: true }),
    });
  }
  return { resolved, problems };
}
