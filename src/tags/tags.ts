import { ValidateBy } from 'class-validator';
import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { springFieldError } from '../common/errors/spring-field-error.js';

/** The most tags one ticket carries. */
export const TAGS_MAX = 50;
/** The longest tag, in characters. */
export const TAG_MAX_LENGTH = 64;

/** A tag as stored: letters, digits, `-`, `_`, `.` and `:`, in lower case. */
const TAG = /^[\p{L}\p{M}\p{N}_.:-]+$/u;

/** A tag in its stored form (trimmed, lower case, NFC), or undefined when it is not one. */
export function canonicalTag(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const tag = value.trim().toLowerCase().normalize('NFC');
  const length = [...tag].length;
  return length >= 1 && length <= TAG_MAX_LENGTH && TAG.test(tag) ? tag : undefined;
}

/**
 * A list of tags as stored and shown: each in canonical form, once, sorted. Undefined when an item is not a tag or the list is not a list; null and absent are the
 * empty list. The number is checked where the list is applied (assertTagCount): a list may name a tag twice.
 */
export function canonicalTags(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return undefined;
  const tags = value.map(canonicalTag);
  if (tags.some((tag) => tag === undefined)) return undefined;
  return sortedSet(tags as string[]);
}

/** The ticket's tags after adding `add` and then removing `remove` (a tag in both is removed). */
export function changedTags(current: readonly string[], add: readonly string[], remove: readonly string[]): string[] {
  const removed = new Set(remove);
  return sortedSet([...current, ...add].filter((tag) => !removed.has(tag)));
}

/** Unique and in code point order, which is the database's binary collation's (UTF-16 order differs past U+FFFF). */
function sortedSet(tags: string[]): string[] {
  return [...new Set(tags)].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** What a tag is, in words. */
export const TAG_RULE = `1 to ${TAG_MAX_LENGTH} letters, digits, '-', '_', '.' or ':'`;
export const TAGS_MESSAGE = `must be a list of tags of ${TAG_RULE}`;

/** A v2 body's `tags`: a JSON list of tags (absent or null: none); how many a ticket may have is checked on the result. */
export const IsTags = () =>
  ValidateBy(
    { name: 'Tags', validator: { validate: (value: unknown) => canonicalTags(value) !== undefined } },
    {
      message: TAGS_MESSAGE,
      context: { javaType: 'java.util.List', attributes: [] },
    },
  );

/** 400 naming `tags` (of `objectName`) when a ticket would carry more than TAGS_MAX tags. */
export function assertTagCount(tags: readonly string[], objectName: string): void {
  if (tags.length <= TAGS_MAX) return;
  throw new ValidationFailedException(objectName, [
    springFieldError(objectName, 'tags', 'Size', 'java.util.List', [TAGS_MAX, 0], `size must be between 0 and ${TAGS_MAX}`, tags),
  ]);
}
