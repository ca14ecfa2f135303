import { TicketPriority } from '../ticket-priority.enum.js';
import { FIELD_SORT_VALUE, type ListedTicket } from '../ticket-row.js';
import { TicketStatus } from '../ticket-status.enum.js';
import { queryFingerprint } from '../../common/paging/cursor.js';
import { decodeCursor, encodeCursor } from './ticket-cursor.js';
import { parseSort } from './ticket-sort.js';

const ticket: ListedTicket = {
  id: 42,
  title: 't',
  description: 'd',
  status: TicketStatus.OPEN,
  priority: TicketPriority.HIGH,
  requesterEmail: 'a@b.c',
  assignedTo: null,
  createdAt: '2026-01-01T10:00:00.000Z',
  updatedAt: '2026-01-02T10:00:00.123Z',
  resolvedAt: null,
};
const sort = parseSort('-priority,updatedAt').keys;
const fingerprint = queryFingerprint({ filters: { statuses: ['OPEN'] }, sort });

describe('ticket cursors', () => {
  it('carry the sort key values of the last ticket, its id last, and nothing readable at a glance', () => {
    const cursor = encodeCursor(fingerprint, sort, ticket);
    expect(cursor).toMatch(/^[\w-]+\.[\w-]{16}$/);
    expect(decodeCursor(cursor, fingerprint, sort)).toEqual(['HIGH', Date.parse('2026-01-02T10:00:00.123Z'), 42]);
  });

  it('are refused when altered: an edited payload, a cut check, another check, garbage', () => {
    const cursor = encodeCursor(fingerprint, sort, ticket);
    const [payload, check] = cursor.split('.');
    const edited = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('42', '43')).toString('base64url');
    for (const bad of [
      `${edited}.${check}`,
      `${payload}.${check.slice(1)}`,
      `${payload}.${'A'.repeat(16)}`,
      'abc',
      '',
      `${cursor}.x`,
      '..',
    ]) {
      expect(decodeCursor(bad, fingerprint, sort)).toBe('unreadable');
    }
  });

  it('belong to the query they came from: other filters or another sort are told apart', () => {
    const cursor = encodeCursor(fingerprint, sort, ticket);
    expect(decodeCursor(cursor, queryFingerprint({ filters: { statuses: ['CLOSED'] }, sort }), sort)).toBe('other-query');
  });

  it('are refused when the values do not fit the sort keys', () => {
    const idOnly = parseSort('id').keys;
    const forId = queryFingerprint({ sort: idOnly });
    expect(decodeCursor(encodeCursor(forId, idOnly, { ...ticket, id: 0 }), forId, idOnly)).toBe('unreadable');
  });

  it('sorted by a custom field, carry its value as stored (or null) before the id, and refuse another shape', () => {
    const { keys, byField } = parseSort('-field.cost');
    const print = queryFingerprint({ filters: {}, sort: keys, byField });
    expect(
      decodeCursor(encodeCursor(print, keys, { ...ticket, [FIELD_SORT_VALUE]: '12.5000000000' }, byField), print, keys, byField),
    ).toEqual(['12.5000000000', 42]);
    expect(decodeCursor(encodeCursor(print, keys, { ...ticket, [FIELD_SORT_VALUE]: null }, byField), print, keys, byField)).toEqual([
      null,
      42,
    ]);
    expect(decodeCursor(encodeCursor(print, keys, ticket), print, keys, byField)).toBe('unreadable');
    expect(decodeCursor(encodeCursor(print, keys, { ...ticket, [FIELD_SORT_VALUE]: 'x'.repeat(256) }, byField), print, keys, byField)).toBe(
      'unreadable',
    );
  });
});
