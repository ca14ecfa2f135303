import { parseTicketQuery, type TicketQuery } from './ticket-query.js';
import { ticketCountSql, ticketListSql } from './ticket-query-sql.js';

const query = (raw: Record<string, unknown>, after?: Array<number | string>): TicketQuery => {
  const parsed = parseTicketQuery(raw, 'v2');
  return after ? { ...parsed, page: { ...parsed.page!, after } } : parsed;
};
const where = (sql: string) => sql.replace(/^.*? FROM tickets/, '');

describe('ticket list SQL', () => {
  it('lists by ascending id by default, one row more than the page to tell whether another follows', () => {
    expect(where(ticketListSql(parseTicketQuery({}, 'v1')).sql)).toBe(' ORDER BY id ASC');
    expect(where(ticketListSql(query({ limit: '10' })).sql)).toBe(' ORDER BY id ASC LIMIT 11');
  });

  it('ANDs the filters, with bound parameters only', () => {
    const { sql, params } = ticketListSql(query({ status: 'OPEN,CLOSED', requesterEmail: 'a@b.c', createdAfter: '2026-01-01T00:00:00Z' }));
    expect(where(sql)).toBe(' WHERE status IN (?) AND requester_email = ? AND created_at >= ? ORDER BY id ASC LIMIT 51');
    expect(params).toEqual([['OPEN', 'CLOSED'], 'a@b.c', new Date('2026-01-01T00:00:00Z')]);
  });

  it('searches from the word index: the first whole word read, the others joined on its ticket, then the ticket', () => {
    const { sql, params } = ticketListSql(query({ status: 'OPEN', q: 'vpn Disconnects', sort: '-id' }, [900]));
    expect(sql.replace(/^SELECT .*? FROM /, '')).toBe(
      'ticket_words w0 JOIN ticket_words w1 ON w1.word = ? AND w1.ticket_id = w0.ticket_id STRAIGHT_JOIN tickets ON tickets.id = w0.ticket_id' +
        ' WHERE w0.word = ? AND status = ? AND (id < ?) ORDER BY id DESC LIMIT 51',
    );
    expect(params).toEqual(['disconnects', 'vpn', 'OPEN', 900]);
  });

  it('checks a prefix word on each ticket of the page, and counts it by a semi-join', () => {
    const prefixed = query({ q: 'jams print*' });
    expect(ticketListSql(prefixed).sql.replace(/^SELECT .*? FROM /, '')).toBe(
      'ticket_words w0 STRAIGHT_JOIN tickets ON tickets.id = w0.ticket_id WHERE w0.word = ?' +
        ' AND (SELECT 1 FROM ticket_words p WHERE p.ticket_id = w0.ticket_id AND p.word LIKE ? LIMIT 1) IS NOT NULL ORDER BY id ASC LIMIT 51',
    );
    expect(ticketListSql(prefixed).params).toEqual(['jams', 'print%']);
    expect(ticketCountSql(prefixed)).toEqual({
      sql: 'SELECT COUNT(*) AS total FROM ticket_words w0 WHERE w0.word = ? AND w0.ticket_id IN (SELECT ticket_id FROM ticket_words WHERE word LIKE ?)',
      params: ['jams', 'print%'],
    });
  });

  it('reads a search of prefixes only from the tickets of each prefix, with _ taken literally', () => {
    const { sql, params } = ticketListSql(query({ q: 'err_1* print*', priority: 'HIGH' }));
    expect(where(sql)).toBe(
      ' WHERE tickets.id IN (SELECT ticket_id FROM ticket_words WHERE word LIKE ?) AND tickets.id IN (SELECT ticket_id FROM ticket_words WHERE word LIKE ?)' +
        ' AND priority = ? ORDER BY id ASC LIMIT 51',
    );
    expect(params).toEqual(['err\\_1%', 'print%', 'HIGH']);
    expect(ticketCountSql(query({ q: 'err_1* print*' }))).toEqual({
      sql: 'SELECT COUNT(DISTINCT w0.ticket_id) AS total FROM ticket_words w0 WHERE w0.word LIKE ? AND w0.ticket_id IN (SELECT ticket_id FROM ticket_words WHERE word LIKE ?)',
      params: ['err\\_1%', 'print%'],
    });
  });

  it('counts a search in the word index alone, and joins the tickets only for other filters', () => {
    expect(ticketCountSql(query({ q: 'printer jams' }))).toEqual({
      sql: 'SELECT COUNT(*) AS total FROM ticket_words w0 JOIN ticket_words w1 ON w1.word = ? AND w1.ticket_id = w0.ticket_id WHERE w0.word = ?',
      params: ['jams', 'printer'],
    });
    expect(ticketCountSql(query({ q: 'printer', status: 'OPEN' }))).toEqual({
      sql: 'SELECT COUNT(*) AS total FROM ticket_words w0 STRAIGHT_JOIN tickets ON tickets.id = w0.ticket_id WHERE w0.word = ? AND status = ?',
      params: ['printer', 'OPEN'],
    });
  });

  it('matches nothing for a search without a searchable word', () => {
    expect(where(ticketCountSql(query({ q: 'to be' })).sql)).toBe(' WHERE FALSE');
    expect(where(ticketListSql(query({ q: 'to be' })).sql)).toBe(' WHERE FALSE ORDER BY id ASC LIMIT 51');
  });

  it("continues after a position, key by key, in each key's own direction", () => {
    const { sql, params } = ticketListSql(query({ sort: '-updatedAt,createdAt' }, [1000, 2000, 7]));
    expect(where(sql)).toBe(
      ' WHERE (updated_at < ? OR (updated_at = ? AND created_at > ?) OR (updated_at = ? AND created_at = ? AND id > ?))' +
        ' ORDER BY updated_at DESC, created_at ASC, id ASC LIMIT 51',
    );
    expect(params).toEqual([new Date(1000), new Date(1000), new Date(2000), new Date(1000), new Date(2000), 7]);
  });

  it('compares priority and status by their order in the enum, never as text', () => {
    expect(ticketListSql(query({ sort: 'priority' }, ['MEDIUM', 7])).params).toEqual([['HIGH', 'CRITICAL'], 'MEDIUM', 7]);
    expect(ticketListSql(query({ sort: '-priority' }, ['MEDIUM', 7])).params).toEqual([['LOW'], 'MEDIUM', 7]);
    // Nothing sorts after CRITICAL: only its own later ids are left.
    expect(where(ticketListSql(query({ sort: 'priority' }, ['CRITICAL', 7])).sql)).toMatch(/^ WHERE \(\(priority = \? AND id > \?\)\)/);
  });

  it('names the index of a common queue, so that a deep page starts at its cursor instead of skipping to it', () => {
    const hint = (raw: Record<string, unknown>) => /FORCE INDEX \((\w+)\)/.exec(ticketListSql(query(raw)).sql)?.[1];
    expect(hint({ status: 'OPEN', sort: '-updatedAt' })).toBe('idx_tickets_status_updated');
    expect(hint({ requesterEmail: 'a@b.c', sort: '-createdAt' })).toBe('idx_tickets_requester_created');
    expect(hint({ assignedTo: 'desk', status: 'OPEN' })).toBe('idx_tickets_assignee_status');
    expect(hint({ priority: 'HIGH', status: 'OPEN' })).toBe('idx_tickets_priority_status');
    expect(hint({ status: 'OPEN,CLOSED', sort: '-updatedAt' })).toBeUndefined();
    expect(hint({ status: 'OPEN', sort: '-updatedAt,id' })).toBeUndefined();
    expect(hint({ status: 'OPEN', priority: 'HIGH', sort: '-updatedAt' })).toBeUndefined();
  });

  it('counts with the filters alone, never the cursor', () => {
    const { sql, params } = ticketCountSql(query({ status: 'OPEN', sort: '-updatedAt' }, [1000, 7]));
    expect(sql).toBe('SELECT COUNT(*) AS total FROM tickets WHERE status = ?');
    expect(params).toEqual(['OPEN']);
  });
});
