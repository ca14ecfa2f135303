/**
 * Words for full-text search, one tokenizer for both sides: the words a ticket is indexed under (its title and
 * description, table `ticket_words`, see ticket-words.ts) and the words of `q`.
 *
 * A word is a run of letters, digits and `_` (any script), lower-cased and cut to WORD_MAX_LENGTH characters.
 * Words shorter than MIN_WORD_LENGTH and the stop words of InnoDB's default list are neither indexed nor
 * required by a search (`the printer` searches `printer`). Everything else a client types is a separator, never
 * an operator, except a `*` directly after a word, which makes that word a prefix (`print*` finds "printer").
 */

/** Shorter words are neither indexed nor searched (innodb_ft_min_token_size, as the FULLTEXT index had it). */
export const MIN_WORD_LENGTH = 3;

/** Longer words are cut to this many characters, when indexed and when searched (ticket_words.word is VARCHAR(64)). */
export const WORD_MAX_LENGTH = 64;

/** INFORMATION_SCHEMA.INNODB_FT_DEFAULT_STOPWORD, the list the FULLTEXT index used: neither indexed nor searched. */
export const INNODB_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about an are as at be by com de en for from how i in is it la of on or that the this to was what when where ' +
    'who will with und www'
  ).split(' '),
);

/** One word of a search: the whole word, or (`prefix`) any word starting with it. */
export interface SearchTerm {
  word: string;
  prefix: boolean;
}

const WORD = /[\p{L}\p{M}\p{N}_]+/gu;
const TERM = /([\p{L}\p{M}\p{N}_]+)(\*?)/gu;

function normalisedWord(word: string): string | undefined {
  const lower = word.toLowerCase();
  const characters = [...lower];
  if (characters.length < MIN_WORD_LENGTH || INNODB_STOP_WORDS.has(lower)) return undefined;
  return characters.length > WORD_MAX_LENGTH ? characters.slice(0, WORD_MAX_LENGTH).join('') : lower;
}

/** The words a ticket is found by: those of its title and description, without repeats (in case). */
export function ticketWords(title: string, description: string): string[] {
  const words = new Set<string>();
  for (const text of [title, description]) {
    for (const match of text.match(WORD) ?? []) {
      const word = normalisedWord(match);
      if (word !== undefined) words.add(word);
    }
  }
  return [...words];
}

/** The terms of `q`, in the order given, without repeats; empty when `q` holds no searchable word. */
export function searchTerms(q: string): SearchTerm[] {
  const terms = new Map<string, SearchTerm>();
  for (const [, text, star] of q.matchAll(TERM)) {
    const word = normalisedWord(text);
    if (word === undefined) continue;
    const term = { word, prefix: star === '*' };
    terms.set(`${term.prefix ? '*' : '='}${word}`, term);
  }
  // `print print*` needs no prefix term: the whole word is the stricter condition.
  return [...terms.values()].filter((term) => !(term.prefix && terms.has(`=${term.word}`)));
}
