import {
  estimatedSizes,
  lookUp,
  setEstimatesSql,
  setSource,
  startingSet,
  type TicketSet,
  WALK_ROWS_MAX,
  walkBound,
} from './vocabulary-sql.js';

describe('tag and field sets', () => {
  const tag: TicketSet = { table: 'ticket_tags', terms: ['tag = ?'], params: ['vpn'] };
  const anyTags: TicketSet = { table: 'ticket_tags', terms: ['tag IN (?)'], params: [['mail', 'smtp']] };
  const option: TicketSet = {
    table: 'ticket_field_values',
    terms: ['field_id = ?', 'text_sort IN (?)'],
    params: [3, ['access']],
    lookup: 'idx_field_values_text_sort',
  };

  it('starts from the smallest set of at most SET_START_MAX entries, the first of equals, or from the smallest of any size', () => {
    const sizes = (...entries: Array<number | string>) => entries.map((size, term) => ({ term, entries: size }));
    expect(startingSet(sizes(200_024, '185224', 899_116))).toBeUndefined();
    expect(startingSet(sizes(200_024, '185224', 899_116), Infinity)).toBe(1);
    expect(startingSet(sizes(40, 40, 0))).toBe(2);
    expect(startingSet(sizes(4_000, '1022'))).toBe(1);
  });

  it('lets a walk examine two rows for each entry of the smallest set, and at least WALK_ROWS_MAX', () => {
    expect(
      walkBound([
        { term: 0, entries: '200024' },
        { term: 1, entries: 899_116 },
      ]),
    ).toBe(400_048);
    expect(walkBound([{ term: 0, entries: 6_000 }])).toBe(WALK_ROWS_MAX);
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

  it('joins a set of at most one entry per ticket by key, and looks each ticket up in any other by a subquery', () => {
    expect(lookUp('tickets.id', [tag, anyTags, option], 'c')).toEqual({
      joins: {
        sql:
          ' STRAIGHT_JOIN ticket_tags c0 ON c0.tag = ? AND c0.ticket_id = tickets.id' +
          ' STRAIGHT_JOIN ticket_field_values c1 FORCE INDEX (idx_field_values_text_sort)' +
          ' ON c1.field_id = ? AND c1.text_sort IN (?) AND c1.ticket_id = tickets.id',
        params: ['vpn', 3, ['access']],
      },
      conditions: [
        { sql: '(SELECT 1 FROM ticket_tags WHERE tag IN (?) AND ticket_id = tickets.id LIMIT 1) IS NOT NULL', params: [['mail', 'smtp']] },
      ],
    });
  });

  it("checks a starting set's entries inside its own statement, collected whole so that the checks come first", () => {
    expect(setSource(tag, 'start')).toEqual({
      sql: '(SELECT entries.ticket_id FROM ticket_tags entries WHERE entries.tag = ?) start',
      params: ['vpn'],
    });
    expect(setSource(anyTags, 'start', (id) => lookUp(id, [option, tag], 'c'))).toEqual({
      sql:
        '(SELECT DISTINCT entries.ticket_id FROM ticket_tags entries' +
        ' STRAIGHT_JOIN ticket_field_values c0 FORCE INDEX (idx_field_values_text_sort)' +
        ' ON c0.field_id = ? AND c0.text_sort IN (?) AND c0.ticket_id = entries.ticket_id' +
        ' STRAIGHT_JOIN ticket_tags c1 ON c1.tag = ? AND c1.ticket_id = entries.ticket_id' +
        ' WHERE entries.tag IN (?) LIMIT 18446744073709551615) start',
      params: [3, ['access'], 'vpn', ['mail', 'smtp']],
    });
    expect(setSource(tag, 'start', (id) => lookUp(id, [anyTags], 'c'))).toEqual({
      sql:
        '(SELECT entries.ticket_id FROM ticket_tags entries WHERE entries.tag = ?' +
        ' AND (SELECT 1 FROM ticket_tags WHERE tag IN (?) AND ticket_id = entries.ticket_id LIMIT 1) IS NOT NULL' +
        ' LIMIT 18446744073709551615) start',
      params: ['vpn', ['mail', 'smtp']],
    });
  });
});
