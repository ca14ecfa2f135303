import { leastEstimated, setSource, type TicketSet } from './vocabulary-sql.js';

describe('tag and field sets', () => {
  const tag: TicketSet = { table: 'ticket_tags', where: 'tag = ?', params: ['vpn'] };

  it('starts from the set estimated smallest, the first of equals, and from one the optimizer found empty at once', () => {
    expect(leastEstimated([200_024, '185224', 899_116])).toBe(1);
    expect(leastEstimated([40, 40])).toBe(0);
    expect(leastEstimated([5_000_000, null])).toBe(1);
  });

  it("checks a starting set's entries inside its own statement, collected whole so that the checks come first", () => {
    const check = (id: string) => ({
      sql: `(SELECT 1 FROM ticket_tags WHERE tag = ? AND ticket_id = ${id} LIMIT 1) IS NOT NULL`,
      params: ['mail'],
    });
    expect(setSource(tag, 'start')).toEqual({ sql: '(SELECT ticket_id FROM ticket_tags entries WHERE tag = ?) start', params: ['vpn'] });
    expect(setSource(tag, 'start', [check])).toEqual({
      sql:
        '(SELECT ticket_id FROM ticket_tags entries WHERE tag = ? AND (SELECT 1 FROM ticket_tags WHERE tag = ? AND ticket_id = entries.ticket_id LIMIT 1) IS NOT NULL' +
        ' LIMIT 18446744073709551615) start',
      params: ['vpn', 'mail'],
    });
  });
});
