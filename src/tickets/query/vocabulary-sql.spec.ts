import { estimatedSizes, setEstimatesSql, setSource, startingSet, type TicketSet } from './vocabulary-sql.js';

describe('tag and field sets', () => {
  const tag: TicketSet = { table: 'ticket_tags', where: 'tag = ?', params: ['vpn'] };

  it('starts from the smallest set of at most SET_START_MAX entries, the first of equals, or from the smallest of any size', () => {
    const sizes = (...entries: Array<number | string>) => entries.map((size, term) => ({ term, entries: size }));
    expect(startingSet(sizes(200_024, '185224', 899_116))).toBeUndefined();
    expect(startingSet(sizes(200_024, '185224', 899_116), Infinity)).toBe(1);
    expect(startingSet(sizes(40, 40, 0))).toBe(2);
    expect(startingSet(sizes(4_000, '1022'))).toBe(1);
  });

  it("takes each set's estimated entries from its EXPLAIN, an empty one's (NULL) as none", () => {
    expect(estimatedSizes([[{ rows: '200024' }], [{ rows: 1022 }], [{ rows: null }]])).toEqual([
      { term: 0, entries: '200024' },
      { term: 1, entries: 1022 },
      { term: 2, entries: 0 },
    ]);
    expect(startingSet(estimatedSizes([[{ rows: '200024' }], [{ rows: 1022 }]]))).toBe(1);
    expect(setEstimatesSql([tag, tag], true).sql).toBe(
      'EXPLAIN SELECT 1 FROM ticket_tags WHERE tag = ?;\nEXPLAIN SELECT 1 FROM ticket_tags WHERE tag = ?',
    );
    expect(setEstimatesSql([tag], false).sql).toBe('EXPLAIN FORMAT=TRADITIONAL SELECT 1 FROM ticket_tags WHERE tag = ?');
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
