import fc from 'fast-check';
import { CC_EMAILS_MAX, canonicalCcEmails } from './cc-emails.js';

describe('canonicalCcEmails', () => {
  it('keeps each address once, lower-cased, in the order first given; null and absent are none', () => {
    expect(canonicalCcEmails(['Ann@Example.com', 'bob@example.com', 'ANN@example.COM'])).toEqual(['ann@example.com', 'bob@example.com']);
    expect(canonicalCcEmails(null)).toEqual([]);
    expect(canonicalCcEmails(undefined)).toEqual([]);
  });

  it('refuses anything but a list of at most 20 addresses', () => {
    expect(canonicalCcEmails('ann@example.com')).toBeUndefined();
    expect(canonicalCcEmails(['ann@example.com', 'not an address'])).toBeUndefined();
    expect(canonicalCcEmails([42])).toBeUndefined();
    expect(canonicalCcEmails(Array.from({ length: CC_EMAILS_MAX + 1 }, (_, i) => `p${i}@example.com`))).toBeUndefined();
  });

  it('gives a list no longer than it was given, whose every address is lower case and unique', () => {
    fc.assert(
      fc.property(fc.array(fc.emailAddress(), { maxLength: CC_EMAILS_MAX }), (addresses) => {
        const canonical = canonicalCcEmails(addresses);
        if (canonical === undefined) return;
        expect(canonical.length).toBeLessThanOrEqual(addresses.length);
        expect(new Set(canonical).size).toBe(canonical.length);
        for (const email of canonical) expect(email).toBe(email.toLowerCase());
        expect(new Set(canonical)).toEqual(new Set(addresses.map((address) => address.toLowerCase())));
      }),
    );
  });
});
