/**
 * The `q` parameter as an InnoDB boolean-mode full-text expression: every word of at least three characters
 * that is not a stop word becomes a required prefix term (`+word*`), so `vpn disconn` finds tickets whose title
 * or description holds a word starting with "vpn" and one starting with "disconn".
 *
 * Words are taken as runs of letters, digits and `_` (the characters InnoDB's parser keeps in a word), so no
 * boolean operator a client types (`+ - < > ( ) ~ * " @`) ever reaches the expression.
 * Shorter words and stop words are dropped rather than required: InnoDB does not index them
 * (innodb_ft_min_token_size = 3, the default stop word list), and a required term that is not in the index
 * matches no row at all.
 */

/** innodb_ft_min_token_size, the server's default. */
export const MIN_WORD_LENGTH = 3;

/** INFORMATION_SCHEMA.INNODB_FT_DEFAULT_STOPWORD, the list InnoDB uses unless a server sets its own. */
export const INNODB_STOP_WORDS: ReadonlySet<string> = new Set(
  ('a about an are as at be by com de en for from how i in is it la of on or that the this to was what when where ' +
    'who will with und www').split(' '),
);

const WORD = /[\p{L}\p{M}\p{N}_]+/gu;

/** The searchable words of `q`, lower-cased and without repeats, in the order given. */
export function searchWords(q: string): string[] {
  const words = (q.match(WORD) ?? []).map((word) => word.toLowerCase());
  return [...new Set(words)].filter((word) => [...word].length >= MIN_WORD_LENGTH && !INNODB_STOP_WORDS.has(word));
}

/** The boolean-mode expression for `q`, or null when it holds no searchable word (and so matches nothing). */
export function searchExpression(q: string): string | null {
  const words = searchWords(q);
  return words.length > 0 ? words.map((word) => `+${word}*`).join(' ') : null;
}
