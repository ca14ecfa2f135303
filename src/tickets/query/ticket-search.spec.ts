import { searchExpression, searchWords } from './ticket-search.js';

describe('full-text search expression', () => {
  it('requires every word as a prefix term', () => {
    expect(searchExpression('VPN disconnects')).toBe('+vpn* +disconnects*');
  });

  it('drops words shorter than three characters and InnoDB stop words, which the index does not hold', () => {
    expect(searchWords('the printer on floor 12 is on fire')).toEqual(['printer', 'floor', 'fire']);
  });

  it('never passes a boolean operator through, whatever the client types', () => {
    expect(searchExpression('+vpn -"drops" (mail*) ~outlook <x> @2 \'; DROP TABLE')).toBe('+vpn* +drops* +mail* +outlook* +drop* +table*');
  });

  it('keeps letters of any script and accents, and counts characters, not bytes', () => {
    expect(searchWords('Café déjà über 日本語 né')).toEqual(['café', 'déjà', 'über', '日本語']);
  });

  it('is null when nothing searchable is left, so that the search matches nothing', () => {
    expect(searchExpression('to be or not')).toBe('+not*');
    expect(searchExpression('it is a ++ --')).toBeNull();
  });

  it('lists a repeated word once', () => {
    expect(searchExpression('mail MAIL Mail')).toBe('+mail*');
  });
});
