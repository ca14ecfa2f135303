/**
 * The codes a field error can carry, in v1's `errors[]` and v2's alike. Bean Validation's names for the
 * constraints the original service declared, Spring's typeMismatch for a value that cannot be converted,
 * and names of the same kind for the list's own rules.
 */
export const FIELD_ERROR_CODES = [
  'NotBlank',
  'NotNull',
  'Email',
  'Size',
  'typeMismatch',
  /** A number outside its range (Hibernate Validator's @Range): `limit`. */
  'Range',
  /** A cursor that was altered, belongs to another query, or comes without `limit` in v1. */
  'InvalidCursor',
  /** v2: a query parameter the operation does not know. */
  'UnknownParameter',
  /** v2: a single-valued query parameter given more than once. */
  'Repeated',
  /** `q` with too many prefix words, or a prefix that matches too many words of the index. */
  'SearchTooBroad',
  /** A URL the service will not send to: its scheme, credentials in it, or an address that is not public. */
  'UnsafeUrl',
  /** An event kind no event has. */
  'UnknownEventType',
  /** v2: `ccEmails` that are not a list of at most 20 addresses. */
  'CcEmails',
  /** v2: `tags` (or `add`, `remove`) that are not a list of tags. */
  'Tags',
  /** v2: a custom field's value its definition refuses (`fields.<key>`), or a member of a definition that does not fit. */
  'InvalidValue',
] as const;

export type FieldErrorCode = (typeof FIELD_ERROR_CODES)[number];
