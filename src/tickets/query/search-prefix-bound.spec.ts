import { ValidationFailedException } from '../../common/errors/validation-failed.exception.js';
import { assertPrefixesBounded, prefixWordCountSql, SEARCH_PREFIX_MAX_WORDS } from './search-prefix-bound.js';
import { searchTerms } from './ticket-search.js';

describe('search prefix bound', () => {
  const terms = searchTerms('printer cam* zet_* rts*');

  it('counts the words of each prefix term in one statement, each count stopped one past the bound', () => {
    const counting = prefixWordCountSql(terms)!;
    expect(counting.params).toEqual(['cam%', 'zet\\_%', 'rts%']);
    expect(counting.sql.match(new RegExp(`LIMIT ${SEARCH_PREFIX_MAX_WORDS + 1}\\b`, 'g'))).toHaveLength(3);
    expect(prefixWordCountSql(searchTerms('printer'))).toBeUndefined();
    expect(prefixWordCountSql(null)).toBeUndefined();
  });

  it('names every prefix over the bound, in the order of q, and lets the others pass', () => {
    const over = SEARCH_PREFIX_MAX_WORDS + 1;
    expect(() =>
      assertPrefixesBounded(terms, 'q', [
        { term: 0, words: 3 },
        { term: 1, words: SEARCH_PREFIX_MAX_WORDS },
        { term: 2, words: 0 },
      ]),
    ).not.toThrow();
    try {
      assertPrefixesBounded(terms, 'the q', [
        { term: 2, words: String(over) },
        { term: 0, words: over },
        { term: 1, words: 5 },
      ]);
      throw new Error('not refused');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationFailedException);
      expect((error as ValidationFailedException).fieldErrors).toEqual([
        expect.objectContaining({
          field: 'q',
          code: 'SearchTooBroad',
          rejectedValue: 'the q',
          defaultMessage: `The prefixes cam*, rts* match more than ${SEARCH_PREFIX_MAX_WORDS} words each; make them longer`,
        }),
      ]);
    }
  });
});
