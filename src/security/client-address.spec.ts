import { addressKey } from './client-address.js';

describe('addressKey', () => {
  it('keeps an IPv4 address as it is, also one written IPv4-mapped', () => {
    expect(addressKey('203.0.113.7', 64)).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7', 64)).toBe('203.0.113.7');
    expect(addressKey('::FFFF:cb00:7107', 64)).toBe('203.0.113.7');
  });

  it('keys IPv6 by its prefix, whatever the spelling', () => {
    expect(addressKey('2001:DB8::1', 64)).toBe('2001:db8:0:0:0:0:0:0/64');
    expect(addressKey('2001:0db8:0000:0000:ffff:1:2:3', 64)).toBe('2001:db8:0:0:0:0:0:0/64');
    expect(addressKey('2001:db8:0:1::1', 64)).toBe('2001:db8:0:1:0:0:0:0/64');
    expect(addressKey('2001:db8:0:1:abcd::1', 72)).toBe('2001:db8:0:1:ab00:0:0:0/72');
    expect(addressKey('fe80::1%eth0', 128)).toBe('fe80:0:0:0:0:0:0:1/128');
    expect(addressKey('64:ff9b::192.0.2.1', 128)).toBe('64:ff9b:0:0:0:0:c000:201/128');
  });

  it('has no key for what is not an IP address', () => {
    for (const text of ['unknown', 'a'.repeat(2000), '', '1.2.3', '01.2.3.4', '2001:db8::1::2', '_hidden', undefined]) {
      expect([text, addressKey(text, 64)]).toEqual([text, undefined]);
    }
  });
});
