import { isEmail } from './spring-constraints.js';

/** The longest address kept: what the columns that hold one (requester_email, participants, members) hold. */
export const EMAIL_MAX_LENGTH = 255;

/**
 * An address (by the rules a ticket's requesterEmail is checked by) in the one form addresses are stored and compared in: trimmed and lower-cased (the tickets' requester
 * as `requester_key`, participants, organization members, a requester token's claim). Undefined when it is no address.
 */
export function canonicalEmail(address: unknown): string | undefined {
  if (typeof address !== 'string') return undefined;
  const trimmed = address.trim();
  if (trimmed === '' || trimmed.length > EMAIL_MAX_LENGTH || !isEmail(trimmed)) return undefined;
  return trimmed.toLowerCase();
}

/** The domain of a canonical address: what follows its last `@`. */
export function domainOf(canonical: string): string {
  return canonical.slice(canonical.lastIndexOf('@') + 1);
}

/** A domain as organizations list it: lower case, no trailing dot; undefined when it is no domain name. */
export function canonicalDomain(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const domain = name.trim().toLowerCase().replace(/\.$/, '');
  return /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/.test(domain) ? domain : undefined;
}
