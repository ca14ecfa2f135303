import { springFieldError } from '../../common/errors/spring-field-error.js';
import { ValidationFailedException } from '../../common/errors/validation-failed.exception.js';
import { likePrefix } from '../../database/like-prefix.js';
import type { SqlStatement } from './ticket-query-sql.js';
import type { SearchTerm } from './ticket-search.js';

/**
 * How many words of the index one prefix (`com*`) may stand for. A search reads every word a prefix matches, and
 * their tickets: `a*`-like prefixes of common letters match thousands of words and read most of the index, which
 * only the request's deadline would stop. Words grow far more slowly than tickets, so a prefix accepted today is
 * accepted on ten times the tickets; a longer prefix is always a way out.
 */
export const SEARCH_PREFIX_MAX_WORDS = 1000;

/** How many distinct words (at most SEARCH_PREFIX_MAX_WORDS + 1) each prefix term of a search matches. */
export interface PrefixWordCount {
  term: number;
  words: number | string;
}

/**
 * One statement counting the words of each prefix term, each count stopped at SEARCH_PREFIX_MAX_WORDS + 1: a
 * loose index scan of the primary key (word, ticket_id), `Using index for group-by`, which reads one index entry
 * per distinct word and none of its tickets, so it costs at most that many index lookups per prefix however many
 * tickets there are (EXPLAIN on 4,000,000 word rows: 1001 index lookups for a prefix of 60,000 words, 2 for one
 * word of 1,000,000 tickets, under 10 ms). Undefined without prefix terms.
 */
export function prefixWordCountSql(terms: readonly SearchTerm[] | null | undefined): SqlStatement | undefined {
  const prefixes = (terms ?? []).filter((term) => term.prefix);
  if (prefixes.length === 0) return undefined;
  const counts = prefixes.map(
    (_term, i) =>
      `SELECT ${i} AS term, COUNT(*) AS words FROM (SELECT word FROM ticket_words WHERE word LIKE ? GROUP BY word LIMIT ${SEARCH_PREFIX_MAX_WORDS + 1}) p${i}`,
  );
  return { sql: counts.join(' UNION ALL '), params: prefixes.map((term) => likePrefix(term.word)) };
}

/** Throws the 400 naming `q` when a prefix term matches more than SEARCH_PREFIX_MAX_WORDS words (counts: prefixWordCountSql's rows). */
export function assertPrefixesBounded(
  terms: readonly SearchTerm[],
  searchText: string | undefined,
  counts: readonly PrefixWordCount[],
): void {
  const prefixes = terms.filter((term) => term.prefix);
  const broad = counts
    .filter((count) => Number(count.words) > SEARCH_PREFIX_MAX_WORDS)
    .map((count) => Number(count.term))
    .sort((a, b) => a - b)
    .map((i) => `${prefixes[i].word}*`);
  if (broad.length === 0) return;
  const message =
    broad.length === 1
      ? `The prefix ${broad[0]} matches more than ${SEARCH_PREFIX_MAX_WORDS} words; make it longer`
      : `The prefixes ${broad.join(', ')} match more than ${SEARCH_PREFIX_MAX_WORDS} words each; make them longer`;
  throw new ValidationFailedException('ticketQuery', [
    springFieldError('ticketQuery', 'q', 'SearchTooBroad', 'java.lang.String', [SEARCH_PREFIX_MAX_WORDS], message, searchText),
  ]);
}
