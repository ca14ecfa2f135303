import { createHash } from 'node:crypto';
import { PreconditionFailedException } from '@nestjs/common';
import type { Response } from 'express';

interface Versioned {
  id: number | string;
  updatedAt: Date;
}

/**
 * A ticket's entity tag: its id and the millisecond of its last write. updatedAt moves forward on every
 * PUT, even two within one millisecond (decision 16), so every stored version has its own tag. A strong
 * tag: the JSON of one version is always the same bytes.
 */
export function ticketEtag(ticket: Versioned): string {
  return `"${ticket.id}-${ticket.updatedAt.getTime()}"`;
}

/**
 * The tag of a v2 body, which may change without a write to the ticket: with SLA on it carries the SLA summary (a
 * breach changes it), its custom field values lose a field when the field is deleted (docs/api.md#custom-fields), and
 * its link counts change with a link. So its tag names them too (`-s` and the summary, `-f` and a hash of the values and links), or If-None-Match would answer 304 to
 * a stale body. If-Match reads only the version part (see ifMatchSatisfied), so a tag from such a GET still guards a write.
 */
export function ticketBodyEtag(
  ticket: Versioned,
  parts: { sla?: { breached: boolean; nextBreachTime: Date | null }; fields?: Record<string, unknown>; links?: Record<string, number> },
): string {
  const { sla, fields = {}, links = {} } = parts;
  const summary = sla ? `-s${sla.breached ? 1 : 0}${sla.nextBreachTime?.getTime().toString(36) ?? ''}` : '';
  const unwritten = Object.keys(fields).length > 0 || Object.keys(links).length > 0;
  const values = unwritten
    ? `-f${createHash('sha256')
        .update(JSON.stringify([fields, links]))
        .digest('base64url')
        .slice(0, 10)
        .replace(/[-_]/g, '0')}`
    : '';
  return `"${ticket.id}-${ticket.updatedAt.getTime()}${summary}${values}"`;
}

/**
 * Sends the ticket's own ETag with a response that carries it, in place of Express's hash of the body, so a client
 * can send it back in If-Match. Express still answers If-None-Match with 304 against it.
 */
export function withEtag<T extends Versioned>(response: Response, ticket: T): T {
  response.setHeader('ETag', ticketEtag(ticket));
  return ticket;
}

/**
 * RFC 9110 If-Match: `*` matches any current ticket; otherwise one of the listed entity tags, read without the parts
 * a v2 body adds (ticketBodyEtag), must equal the ticket's by strong comparison, so weak tags (`W/"..."`) and anything
 * unparseable never match.
 */
export function ifMatchSatisfied(ifMatch: string, current: string): boolean {
  if (ifMatch.trim() === '*') return true;
  const tags: string[] = ifMatch.match(/(?:W\/)?"[^"]*"/g) ?? [];
  return tags.some((tag) => tag.replace(/^((?:W\/)?"\d+-\d+)(?:-s[0-9a-z]*)?(?:-f[0-9A-Za-z]*)?"$/, '$1"') === current);
}

/** Throws 412 when the client's If-Match names a version other than the stored one; no header, no check. */
export function assertIfMatch(ifMatch: string | undefined, ticket: Versioned): void {
  if (ifMatch === undefined) return;
  const current = ticketEtag(ticket);
  if (!ifMatchSatisfied(ifMatch, current)) {
    throw new PreconditionFailedException(`Ticket ${ticket.id} has been changed: If-Match does not match its current ETag ${current}`);
  }
}
