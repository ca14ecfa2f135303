import { ValidateBy } from 'class-validator';
import { compilePattern, type FieldDefinition, NUMBER_LIMIT, storedNumber, TEXT_MAX_LENGTH } from './field-definition.js';

/** A custom field's value as a v2 body carries it. */
export type FieldValue = string | number | boolean | string[];
/** A ticket's values by field key; a field without a value is absent. */
export type FieldValues = Record<string, FieldValue>;

/** What is wrong with one value: the member it names (`fields.<key>`), why, and the value. */
export interface ValueProblem {
  field: string;
  message: string;
  rejected: unknown;
}

/**
 * How a write sets the values: `create` and `replace` make the values given the ticket's (absent or null: none), and
 * every required field must have one; `patch` is a JSON merge patch of them (a value replaces, null removes, absent
 * keeps), and refuses only the removal of a required field's value; `import` is a replacement that requires nothing
 * (a desk's past tickets were written before its fields were required).
 */
export type ValuesWrite = 'create' | 'replace' | 'patch' | 'import';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A calendar date `YYYY-MM-DD` within what the database stores (years 1000–9999). */
export function isIsoDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^[1-9]\d{3}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/**
 * The one validator of a value against its field's definition: the value in canonical form (a number to the 10
 * decimal places it is stored with, a multi_enum's items once each in the order of the options; an empty multi_enum
 * is no value), or why it is refused.
 */
export function checkValue(definition: FieldDefinition, value: unknown): { value: FieldValue | null } | { message: string } {
  switch (definition.type) {
    case 'text': {
      if (typeof value !== 'string') return { message: 'must be a string' };
      if ([...value].length > TEXT_MAX_LENGTH) return { message: `must be at most ${TEXT_MAX_LENGTH} characters` };
      if (definition.pattern !== null && !compilePattern(definition.pattern)!.test(value)) {
        return { message: `must match ${definition.pattern}` };
      }
      return { value };
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) >= NUMBER_LIMIT) return { message: 'must be a number' };
      // Checked as it is stored, so the bounds hold for what is kept.
      const stored = storedNumber(value);
      const { min, max } = definition;
      if ((min !== null && stored < min) || (max !== null && stored > max)) {
        return { message: `must be between ${min ?? '-∞'} and ${max ?? '∞'}` };
      }
      return { value: stored };
    }
    case 'date':
      return isIsoDate(value) ? { value } : { message: 'must be a date, YYYY-MM-DD' };
    case 'boolean':
      return typeof value === 'boolean' ? { value } : { message: 'must be true or false' };
    case 'enum':
      return typeof value === 'string' && definition.options!.includes(value)
        ? { value }
        : { message: `must be one of ${definition.options!.join(', ')}` };
    case 'multi_enum': {
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || !definition.options!.includes(item))) {
        return { message: `must be a list of ${definition.options!.join(', ')}` };
      }
      const items = definition.options!.filter((option) => value.includes(option));
      return { value: items.length > 0 ? items : null };
    }
  }
}

/**
 * A write's `fields` applied to the ticket's `current` values by `definitions`: the values after it, or every problem
 * (unknown keys, wrong types, values outside the definition, a required field without a value).
 */
export function applyFieldValues(
  definitions: readonly FieldDefinition[],
  given: unknown,
  write: ValuesWrite,
  current: FieldValues = {},
): { values?: FieldValues; problems: ValueProblem[] } {
  const problems: ValueProblem[] = [];
  if (given !== undefined && given !== null && !isObject(given)) {
    return { problems: [{ field: 'fields', message: 'must be an object of field keys and values', rejected: given }] };
  }
  const byKey = new Map(definitions.map((definition) => [definition.key, definition]));
  const values: FieldValues = write === 'patch' && given !== null ? { ...current } : {};
  const removed = new Set<string>();
  for (const [key, value] of Object.entries(given ?? {})) {
    const definition = byKey.get(key);
    if (!definition) {
      problems.push({
        field: `fields.${key}`,
        message: `Unknown field; defined: ${[...byKey.keys()].join(', ') || 'none'}`,
        rejected: value,
      });
      continue;
    }
    const checked = value === null ? { value: null } : checkValue(definition, value);
    if ('message' in checked) {
      problems.push({ field: `fields.${key}`, message: checked.message, rejected: value });
    } else if (checked.value === null) {
      delete values[key];
      removed.add(key);
    } else {
      values[key] = checked.value;
    }
  }
  if (write === 'patch' && given === null) for (const key of Object.keys(current)) removed.add(key);
  const refused = new Set(problems.map((problem) => problem.field));
  for (const definition of definitions) {
    const missing =
      values[definition.key] === undefined &&
      !refused.has(`fields.${definition.key}`) &&
      (write !== 'patch' || removed.has(definition.key));
    if (definition.required && missing && write !== 'import')
      problems.push({ field: `fields.${definition.key}`, message: 'is required', rejected: null });
  }
  return problems.length > 0 ? { problems } : { values, problems };
}

/** A v2 body's `fields`: an object of field keys and values, or null (the definitions check the values). */
export const IsFieldValues = () =>
  ValidateBy(
    { name: 'InvalidValue', validator: { validate: (value: unknown) => value === null || value === undefined || isObject(value) } },
    { message: 'must be an object of custom field keys and values', context: { javaType: 'java.util.Map', attributes: [] } },
  );

/** The OpenAPI schema of a ticket's `fields`: a typed map, each value of one of the field types. */
export const FIELD_VALUES_SCHEMA = {
  type: 'object' as const,
  additionalProperties: {
    oneOf: [
      { type: 'string', description: 'text, enum, or date (YYYY-MM-DD)' },
      { type: 'number', description: 'number' },
      { type: 'boolean', description: 'boolean' },
      { type: 'array', items: { type: 'string' }, description: 'multi_enum' },
    ],
  },
  example: { category: 'network', cost: 120.5, due: '2026-12-01', oncall: true, sites: ['ber', 'muc'] },
};

/** Whether two values are the same (a multi_enum's items are kept in one order). */
export function sameValue(a: FieldValue | undefined, b: FieldValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
