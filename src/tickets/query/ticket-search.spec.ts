import { searchTerms, ticketWords, WORD_MAX_LENGTH } from './ticket-search.js';

const exact = (...words: string[]) => words.map((word) => ({ word, prefix: false }));

describe('search words', () => {
  it('requires every word of q as a whole word, lower-cased', () => {
    expect(searchTerms('VPN Disconnects')).toEqual(exact('vpn', 'disconnects'));
  });

  it('makes a word a prefix only with a * directly after it', () => {
    expect(searchTerms('print* jams')).toEqual([
      { word: 'print', prefix: true },
      { word: 'jams', prefix: false },
    ]);
    expect(searchTerms('print * *jams')).toEqual(exact('print', 'jams'));
    expect(searchTerms('print** jam*s')).toEqual([
      { word: 'print', prefix: true },
      { word: 'jam', prefix: true },
    ]);
  });

  it('drops words shorter than three characters and InnoDB stop words, also as prefixes', () => {
    expect(searchTerms('the printer on floor 12 is on fire')).toEqual(exact('printer', 'floor', 'fire'));
    expect(searchTerms('pr* the* printer')).toEqual(exact('printer'));
  });

  it('never passes an operator through, whatever the client types', () => {
    expect(searchTerms('+vpn -"drops" (mail*) ~outlook <x> @2 \'; DROP TABLE%')).toEqual([
      ...exact('vpn', 'drops'),
      { word: 'mail', prefix: true },
      ...exact('outlook', 'drop', 'table'),
    ]);
  });

  it('keeps letters of any script and accents, and counts characters, not bytes', () => {
    expect(searchTerms('Café déjà über 日本語 né')).toEqual(exact('café', 'déjà', 'über', '日本語'));
  });

  it('is empty when nothing searchable is left, so that the search matches nothing', () => {
    expect(searchTerms('to be or not')).toEqual(exact('not'));
    expect(searchTerms('it is a ++ -- **')).toEqual([]);
  });

  it('lists a repeated word once, and a word given whole and as a prefix only whole', () => {
    expect(searchTerms('mail MAIL Mail')).toEqual(exact('mail'));
    expect(searchTerms('mail* MAIL')).toEqual(exact('mail'));
  });

  it('cuts a word to 64 characters, in q as in a ticket', () => {
    const long = 'x'.repeat(70);
    expect(searchTerms(long)).toEqual(exact('x'.repeat(WORD_MAX_LENGTH)));
    expect(ticketWords(long, '')).toEqual(['x'.repeat(WORD_MAX_LENGTH)]);
  });
});

describe('the words a ticket is indexed under', () => {
  it('are those of title and description by the same rules, once each', () => {
    expect(ticketWords('Printer jams on floor 3', 'The printer JAMS; ERR_42 in café')).toEqual([
      'printer',
      'jams',
      'floor',
      'err_42',
      'café',
    ]);
  });

  it('are none when nothing is searchable', () => {
    expect(ticketWords('It is on', 'a b c')).toEqual([]);
  });
});
