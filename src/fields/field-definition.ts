import safeRegex from 'safe-regex2';

/** The kinds of value a custom field holds. */
export const FIELD_TYPES = ['text', 'number', 'date', 'boolean', 'enum', 'multi_enum'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** A custom field as a desk defines it (docs/api.md#custom-fields). */
export interface FieldDefinition {
  key: string;
  label: string;
  type: FieldType;
  required: boolean;
  /** The values of an enum or multi_enum, in the order shown; null for other types. */
  options: string[] | null;
  /** A number's bounds, inclusive; null for none (and for other types). */
  min: number | null;
  max: number | null;
  /** A text's pattern, which the whole value must match (JavaScript syntax, `u` flag); null for none. */
  pattern: string | null;
  description: string | null;
}

export const FIELD_KEY = /^[a-z][a-z0-9_]{0,63}$/;
export const TEXT_MAX_LENGTH = 1000;
export const OPTIONS_MAX = 500;
export const OPTION_MAX_LENGTH = 255;
export const PATTERN_MAX_LENGTH = 500;
/** What a number field stores exactly: decimal(38,10), so at most 28 digits before the point. */
export const NUMBER_LIMIT = 1e27;

/** A number as a value is stored: to 10 decimal places (decimal(38,10)). */
export function storedNumber(value: number): number {
  return Number(value.toFixed(10)) || 0;
}

/** What is wrong with one member of a definition: its name and why. */
export interface DefinitionProblem {
  field: string;
  message: string;
  rejected: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const characters = (text: string) => [...text].length;

/** A text field's pattern as a whole-value matcher, or undefined when it is not a usable pattern. */
export function compilePattern(pattern: string): RegExp | undefined {
  try {
    // On its own first: `a)|(b` is no pattern, though wrapped it would compile (and match unanchored).
    new RegExp(pattern, 'u');
    const whole = new RegExp(`^(?:${pattern})$`, 'u');
    // A pattern whose backtracking can explode would let one value stall the service: nested repetition (safe-regex2),
    // and a repeated group holding alternatives (`(a|a)*`), which safe-regex2 lets through.
    return safeRegex(whole) && !REPEATED_ALTERNATION.test(pattern) ? whole : undefined;
  } catch {
    return undefined;
  }
}

/** A group with a `|` in it, directly followed by a quantifier. */
const REPEATED_ALTERNATION = /\([^()]*\|[^()]*\)(?:[*+?]|\{\d)/;

/**
 * A definition from a request body: for a new field (`existing` undefined) every member is read; for a change
 * (PATCH, a merge patch of the existing one), the members given replace the existing ones, and key and type stay.
 * Answers the definition, or every problem found.
 */
export function readDefinition(body: unknown, existing?: FieldDefinition): { definition?: FieldDefinition; problems: DefinitionProblem[] } {
  const problems: DefinitionProblem[] = [];
  const problem = (field: string, message: string, rejected: unknown) => problems.push({ field, message, rejected });
  if (!isObject(body)) return { problems: [{ field: 'body', message: 'must be a JSON object', rejected: body }] };
  const given = (name: string) => body[name] !== undefined;
  const fixed = (name: keyof FieldDefinition) => existing !== undefined && (name === 'key' || name === 'type');
  const value = (name: keyof FieldDefinition) => (given(name) && !fixed(name) ? body[name] : existing?.[name]);

  if (existing) {
    for (const fixed of ['key', 'type'] as const) {
      if (given(fixed) && body[fixed] !== existing[fixed])
        problem(fixed, `is fixed once the field exists (${existing[fixed]})`, body[fixed]);
    }
  }
  const key = value('key');
  // `constructor` names what every JavaScript object has: values keyed by it would be read as that.
  if (typeof key !== 'string' || !FIELD_KEY.test(key) || key === 'constructor')
    problem('key', 'must match [a-z][a-z0-9_]{0,63} (not constructor)', key);
  const type = value('type');
  if (!FIELD_TYPES.includes(type as FieldType)) problem('type', `must be one of ${FIELD_TYPES.join(', ')}`, type);
  const label = value('label');
  if (typeof label !== 'string' || label.trim() === '' || characters(label) > 255) problem('label', 'must be 1 to 255 characters', label);
  const required = value('required') ?? false;
  if (typeof required !== 'boolean') problem('required', 'must be true or false', required);
  const description = value('description') ?? null;
  if (description !== null && (typeof description !== 'string' || characters(description) > 1000)) {
    problem('description', 'must be at most 1000 characters', description);
  }

  const choice = type === 'enum' || type === 'multi_enum';
  const options = value('options') ?? null;
  if (choice) {
    const valid =
      Array.isArray(options) &&
      options.length >= 1 &&
      options.length <= OPTIONS_MAX &&
      // No comma: a list filter separates the values it takes by commas.
      options.every(
        (option) =>
          typeof option === 'string' &&
          option.trim() === option &&
          option !== '' &&
          !option.includes(',') &&
          characters(option) <= OPTION_MAX_LENGTH,
      ) &&
      new Set(options).size === options.length;
    if (!valid) {
      problem(
        'options',
        `must be 1 to ${OPTIONS_MAX} different values of 1 to ${OPTION_MAX_LENGTH} characters, without commas or spaces around`,
        options,
      );
    }
  } else if (options !== null) {
    problem('options', 'only an enum or multi_enum field has options', options);
  }

  const min = value('min') ?? null;
  const max = value('max') ?? null;
  for (const [name, bound] of [
    ['min', min],
    ['max', max],
  ] as const) {
    if (bound === null) continue;
    if (type !== 'number') problem(name, 'only a number field has bounds', bound);
    else if (typeof bound !== 'number' || !Number.isFinite(bound) || Math.abs(bound) >= NUMBER_LIMIT || storedNumber(bound) !== bound) {
      problem(name, 'must be a number of at most 10 decimal places', bound);
    }
  }
  if (typeof min === 'number' && typeof max === 'number' && min > max) problem('max', 'must not be less than min', max);

  const pattern = value('pattern') ?? null;
  if (pattern !== null) {
    if (type !== 'text') problem('pattern', 'only a text field has a pattern', pattern);
    else if (typeof pattern !== 'string' || characters(pattern) > PATTERN_MAX_LENGTH || !compilePattern(pattern)) {
      problem('pattern', `must be a regular expression of at most ${PATTERN_MAX_LENGTH} characters without nested repetition`, pattern);
    }
  }
  if (problems.length > 0) return { problems };
  return {
    definition: {
      key: key as string,
      label: label as string,
      type: type as FieldType,
      required: required as boolean,
      options: choice ? (options as string[]) : null,
      min: min as number | null,
      max: max as number | null,
      pattern: pattern as string | null,
      description: description as string | null,
    },
    problems,
  };
}
