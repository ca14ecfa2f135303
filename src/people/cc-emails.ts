import { ValidateBy } from 'class-validator';
import { canonicalEmail } from '../common/validation/email-address.js';

/** The most participants (ccEmails) a ticket lists. */
export const CC_EMAILS_MAX = 20;

/**
 * A ticket's participants as they are stored and shown: each address in canonical form, once, in the order first
 * given. Undefined for a value that is not a list of at most CC_EMAILS_MAX addresses (the DTO's IsCcEmails refuses it
 * first); null and absent are both the empty list.
 */
export function canonicalCcEmails(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > CC_EMAILS_MAX) return undefined;
  const canonical = value.map(canonicalEmail);
  if (canonical.some((email) => email === undefined)) return undefined;
  return [...new Set(canonical as string[])];
}

/** A v2 body's `ccEmails`: a JSON list of at most CC_EMAILS_MAX well-formed addresses, or absent or null. */
export const IsCcEmails = () =>
  ValidateBy(
    { name: 'CcEmails', validator: { validate: (value: unknown) => canonicalCcEmails(value) !== undefined } },
    {
      message: `must be a list of at most ${CC_EMAILS_MAX} well-formed email addresses`,
      context: { javaType: 'java.util.List', attributes: [] },
    },
  );
