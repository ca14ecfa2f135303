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
 * The tag of a v2 body with SLA on: the body also carries the SLA summary, which changes without a write (a breach), so
 * its tag names the summary too (`-s` and a fingerprint), or If-None-Match would answer 304 to a stale `sla`.
 * If-Match reads only the version part (see ifMatchSatisfied), so a tag from such a GET still guards a write.
 */
export function ticketSlaEtag(ticket: Versioned, sla: { breached: boolean; nextBreachTime: Date | null }): string {
  return `"${ticket.id}-${ticket.updatedAt.getTime()}-s${sla.breached ? 1 : 0}${sla.nextBreachTime?.getTime().toString(36) ?? ''}"`;
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
 * RFC 9110 If-Match: `*` matches any current ticket; otherwise one of the listed entity tags, read without the SLA
 * summary's part (ticketSlaEtag), must equal the ticket's by strong comparison, so weak tags (`W/"..."`) and anything
 * unparseable never match.
 */
export function ifMatchSatisfied(ifMatch: string, current: string): boolean {
  if (ifMatch.trim() === '*') return true;
  const tags: string[] = ifMatch.match(/(?:W\/)?"[^"]*"/g) ?? [];
  return tags.some((tag) => tag.replace(/-s[0-9a-z]*"$/, '"') === current);
}

/** Throws 412 when the client's If-Match names a version other than the stored one; no header, no check. */
export function assertIfMatch(ifMatch: string | undefined, ticket: Versioned): void {
  if (ifMatch === undefined) return;
  const current = ticketEtag(ticket);
  if (!ifMatchSatisfied(ifMatch, current)) {
    throw new PreconditionFailedException(`Ticket ${ticket.id} has been changed: If-Match does not match its current ETag ${current}`);
  }
}
