import fc from 'fast-check';
import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { assertTagCount, canonicalTag, canonicalTags, changedTags, TAG_MAX_LENGTH, TAGS_MAX } from './tags.js';

const tagCharacters = fc.constantFrom(...'abcXYZ019-_.:éÉß'.split(''), ' ', '/', '#', 'İ');
const tagLike = fc.string({ unit: tagCharacters, minLength: 0, maxLength: 70 });

describe('tags', () => {
  it('trims and lower-cases a tag, and refuses what holds other characters or is empty or longer than 64', () => {
    expect(canonicalTag('  Net:VPN-2.0_eu ')).toBe('net:vpn-2.0_eu');
    expect(canonicalTag('Café')).toBe('café');
    expect(canonicalTag('x'.repeat(TAG_MAX_LENGTH))).toBe('x'.repeat(TAG_MAX_LENGTH));
    for (const bad of ['', '   ', 'two words', 'a/b', '#1', 'x'.repeat(TAG_MAX_LENGTH + 1), 42, null]) {
      expect(canonicalTag(bad)).toBeUndefined();
    }
  });

  it('collapses a list to sorted, unique tags; null and absent are none; one bad item refuses the list', () => {
    expect(canonicalTags(['VPN', 'printer', 'vpn ', 'Printer'])).toEqual(['printer', 'vpn']);
    expect(canonicalTags(null)).toEqual([]);
    expect(canonicalTags(undefined)).toEqual([]);
    expect(canonicalTags('vpn')).toBeUndefined();
    expect(canonicalTags(['vpn', 'not a tag'])).toBeUndefined();
  });

  it('adds, then removes (a tag in both is removed), keeping the list sorted and unique', () => {
    expect(changedTags(['a', 'c'], ['b', 'a'], [])).toEqual(['a', 'b', 'c']);
    expect(changedTags(['a', 'c'], ['d'], ['a', 'd', 'zzz'])).toEqual(['c']);
  });

  it('refuses more than 50 tags on a ticket with a Size error naming tags', () => {
    expect(() =>
      assertTagCount(
        Array.from({ length: TAGS_MAX }, (_, i) => `t${i}`),
        'ticketV2Request',
      ),
    ).not.toThrow();
    let thrown: unknown;
    try {
      assertTagCount(
        Array.from({ length: TAGS_MAX + 1 }, (_, i) => `t${i}`),
        'ticketV2Request',
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationFailedException);
    expect((thrown as ValidationFailedException).fieldErrors.map((error) => [error.field, error.code])).toEqual([['tags', 'Size']]);
  });

  it('gives a canonical tag that is its own canonical form, within the limits', () => {
    fc.assert(
      fc.property(tagLike, (text) => {
        const tag = canonicalTag(text);
        if (tag === undefined) return;
        expect(canonicalTag(tag)).toBe(tag);
        expect(tag).toBe(tag.toLowerCase());
        expect([...tag].length).toBeGreaterThanOrEqual(1);
        expect([...tag].length).toBeLessThanOrEqual(TAG_MAX_LENGTH);
      }),
    );
  });

  it('makes a list that no order or repetition of the same tags changes', () => {
    fc.assert(
      fc.property(fc.array(tagLike, { maxLength: 20 }), fc.nat(), (texts, seed) => {
        const tags = canonicalTags(texts);
        if (tags === undefined) return;
        const shuffled = [...texts, ...texts].sort((a, b) => ((a.length * 31 + seed) % 7) - ((b.length * 31 + seed) % 7));
        expect(canonicalTags(shuffled)).toEqual(tags);
        expect(canonicalTags(tags)).toEqual(tags);
      }),
    );
  });

  it('applies add and remove as sets: every removed tag is gone, every other added or kept tag is there', () => {
    const tags = fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 5 });
    fc.assert(
      fc.property(tags, tags, tags, (current, add, remove) => {
        const result = changedTags(canonicalTags(current)!, add, remove);
        const expected = new Set([...current, ...add].filter((tag) => !remove.includes(tag)));
        expect(new Set(result)).toEqual(expected);
        expect(result).toEqual([...expected].sort());
      }),
    );
  });
});
