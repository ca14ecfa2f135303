import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * Constraint decorators named after the Bean Validation annotations the original service used, so that
 * validation failures can be rendered with Spring's codes (NotBlank, NotNull, Email, Size, typeMismatch).
 * Each constraint only judges values of the type it is about; a value of the wrong JSON type is
 * reported once, by the field's type check, and not again by every constraint.
 */
export interface SpringConstraintContext {
  /** Java type name used in Spring's error codes, e.g. java.lang.String. */
  javaType: string;
  /** The annotation's attributes in alphabetical order, as Spring lists them in `arguments`. */
  attributes: unknown[];
}

const STRING = 'java.lang.String';

function springConstraint(
  name: string,
  context: SpringConstraintContext,
  validate: (value: unknown) => boolean,
  message: string | undefined,
  defaultMessage: string,
): PropertyDecorator {
  const options: ValidationOptions = { message: message ?? defaultMessage, context };
  return ValidateBy({ name, validator: { validate } }, options);
}

export const NotBlank = (message?: string) =>
  springConstraint(
    'NotBlank',
    { javaType: STRING, attributes: [] },
    (value) => (typeof value !== 'string' ? value !== undefined && value !== null : value.trim().length > 0),
    message,
    'must not be blank',
  );

export const NotNull = (javaType: string, message?: string) =>
  springConstraint('NotNull', { javaType, attributes: [] }, (value) => value !== undefined && value !== null, message, 'must not be null');

/** Length in code points, as MySQL's utf8mb4 columns count characters. */
export const Size = (max: number, message?: string) =>
  springConstraint(
    'Size',
    { javaType: STRING, attributes: [max, 0] },
    (value) => typeof value !== 'string' || codePointLength(value) <= max,
    message,
    `size must be between 0 and ${max}`,
  );

export const Email = (message?: string) =>
  springConstraint(
    'Email',
    { javaType: STRING, attributes: [[], { codes: ['.*'], arguments: null, defaultMessage: '.*', code: '.*' }] },
    (value) => typeof value !== 'string' || value === '' || isEmail(value),
    message,
    'must be a well-formed email address',
  );

/** The JSON value must be a string (or absent/null, which NotBlank judges). */
export const IsJsonString = () =>
  springConstraint(
    'typeMismatch',
    { javaType: STRING, attributes: [] },
    (value) => value === undefined || value === null || typeof value === 'string',
    undefined,
    `Failed to convert value to required type '${STRING}'`,
  );

/** The JSON value must be a boolean (or absent/null, which NotNull judges). */
export const IsJsonBoolean = () =>
  springConstraint(
    'typeMismatch',
    { javaType: 'java.lang.Boolean', attributes: [] },
    (value) => value === undefined || value === null || typeof value === 'boolean',
    undefined,
    "Failed to convert value to required type 'java.lang.Boolean'",
  );

/** The JSON value must be an exact-case member of the enum (or absent/null, which NotNull judges). */
export const IsEnumMember = (values: Record<string, string>, javaType: string) =>
  springConstraint(
    'typeMismatch',
    { javaType, attributes: [] },
    (value) => value === undefined || value === null || (typeof value === 'string' && Object.values(values).includes(value)),
    undefined,
    `Failed to convert value to required type '${javaType}'; accepted values: [${Object.values(values).join(', ')}]`,
  );

export function codePointLength(value: string): number {
  let length = 0;
  for (const _ of value) length++;
  return length;
}

// Hibernate Validator's @Email rules: the address splits at the last '@'; a dot-atom or quoted local
// part of at most 64 characters; a domain of labels (no TLD required) or an IP literal.
const LOCAL_ATOM = "[a-z0-9!#$%&'*+/=?^_`{|}~\\u0080-\\uffff-]+";
const LOCAL_PART = new RegExp(`^(?:${LOCAL_ATOM}(?:\\.${LOCAL_ATOM})*|"(?:[^"\\\\]|\\\\.)*")$`, 'iu');
const DOMAIN_LABEL = '[a-z0-9\\u0080-\\uffff](?:[a-z0-9\\u0080-\\uffff-]{0,61}[a-z0-9\\u0080-\\uffff])?';
const DOMAIN = new RegExp(`^(?:${DOMAIN_LABEL}(?:\\.${DOMAIN_LABEL})*|\\[[0-9a-f:.]+\\])$`, 'iu');

export function isEmail(value: string): boolean {
  const at = value.lastIndexOf('@');
  if (at <= 0 || at === value.length - 1) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  return local.length <= 64 && domain.length <= 255 && LOCAL_PART.test(local) && DOMAIN.test(domain);
}

/** The JSON value must be a list of at most `max` distinct ids (positive 64-bit integers that JSON numbers hold exactly), or absent/null. */
export const IsIdList = (max: number) =>
  springConstraint(
    'typeMismatch',
    { javaType: 'java.util.List', attributes: [] },
    (value) =>
      value === undefined ||
      value === null ||
      (Array.isArray(value) &&
        value.length <= max &&
        new Set(value).size === value.length &&
        value.every((id) => Number.isSafeInteger(id) && (id as number) >= 1)),
    undefined,
    `Failed to convert value to required type 'java.util.List'; a list of at most ${max} distinct ids`,
  );

/** The JSON value must be an id: a positive integer that a JSON number holds exactly (or absent/null, which NotNull judges). */
export const IsId = () =>
  springConstraint(
    'typeMismatch',
    { javaType: 'java.lang.Long', attributes: [] },
    (value) => value === undefined || value === null || (Number.isSafeInteger(value) && (value as number) >= 1),
    undefined,
    "Failed to convert value to required type 'java.lang.Long'; a ticket id, a positive integer",
  );
