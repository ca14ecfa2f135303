import { PreconditionFailedException } from '@nestjs/common';
import { assertIfMatch, ifMatchSatisfied, ticketBodyEtag, ticketEtag } from './ticket-etag.js';

const ticket = { id: '7', updatedAt: new Date('2026-01-01T10:00:00.123Z') };
const ETAG = `"7-${ticket.updatedAt.getTime()}"`;

describe('ticket ETag', () => {
  it('is a strong tag made of the id and the millisecond of the last write', () => {
    expect(ticketEtag(ticket)).toBe(ETAG);
    expect(ticketEtag({ ...ticket, updatedAt: new Date(ticket.updatedAt.getTime() + 1) })).not.toBe(ETAG);
  });

  it('matches If-Match "*" and a list that holds the current tag', () => {
    expect(ifMatchSatisfied('*', ETAG)).toBe(true);
    expect(ifMatchSatisfied(ETAG, ETAG)).toBe(true);
    expect(ifMatchSatisfied(`"7-1", ${ETAG}`, ETAG)).toBe(true);
  });

  it('never matches a stale tag, a weak tag or an unquoted value', () => {
    expect(ifMatchSatisfied('"7-1"', ETAG)).toBe(false);
    expect(ifMatchSatisfied(`W/${ETAG}`, ETAG)).toBe(false);
    expect(ifMatchSatisfied(ETAG.replaceAll('"', ''), ETAG)).toBe(false);
    expect(ifMatchSatisfied('', ETAG)).toBe(false);
  });

  it('throws 412 naming the current tag when If-Match is stale, and checks nothing without it', () => {
    expect(() => assertIfMatch('"7-1"', ticket)).toThrow(PreconditionFailedException);
    expect(() => assertIfMatch('"7-1"', ticket)).toThrow(ETAG);
    expect(() => assertIfMatch(undefined, ticket)).not.toThrow();
    expect(() => assertIfMatch(ETAG, ticket)).not.toThrow();
  });

  it('gives a body with an SLA summary a tag of its own per summary, which If-Match reads as the version alone', () => {
    const before = ticketBodyEtag(ticket, { sla: { breached: false, nextBreachTime: new Date('2026-01-01T12:00:00Z') } });
    const after = ticketBodyEtag(ticket, { sla: { breached: true, nextBreachTime: null } });
    expect(before).not.toEqual(after);
    expect(before).not.toEqual(ETAG);
    expect(ifMatchSatisfied(before, ETAG)).toBe(true);
    expect(ifMatchSatisfied(after, ETAG)).toBe(true);
    expect(ifMatchSatisfied(`W/${after}`, ETAG)).toBe(false);
    expect(
      ifMatchSatisfied(ticketBodyEtag({ ...ticket, updatedAt: new Date(0) }, { sla: { breached: true, nextBreachTime: null } }), ETAG),
    ).toBe(false);
  });

  it('gives a body with custom field values a tag per values (a deleted field changes them), which If-Match reads as the version alone', () => {
    const category = ticketBodyEtag(ticket, { fields: { category: 'network', cost: 5 } });
    const without = ticketBodyEtag(ticket, { fields: { category: 'network' } });
    expect(category).toMatch(/^"7-\d+-f[0-9A-Za-z]{10}"$/);
    expect(category).not.toEqual(without);
    expect(ticketBodyEtag(ticket, { fields: {} })).toEqual(ETAG);
    expect(ifMatchSatisfied(category, ETAG)).toBe(true);
    const both = ticketBodyEtag(ticket, { sla: { breached: true, nextBreachTime: null }, fields: { cost: 5 } });
    expect(ifMatchSatisfied(both, ETAG)).toBe(true);
    expect(ifMatchSatisfied(both.replace('-f', '-x'), ETAG)).toBe(false);
  });
});
