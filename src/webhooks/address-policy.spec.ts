import { AddressRefused, checkUrlText, nonPublicReason, resolveChecked, type Resolver, resolverWithin } from './address-policy.js';

const resolvesTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('webhook address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.1.2.3', 'private (RFC 1918)'],
    ['172.16.0.1', 'private (RFC 1918)'],
    ['172.31.255.255', 'private (RFC 1918)'],
    ['192.168.1.1', 'private (RFC 1918)'],
    ['100.64.0.1', 'carrier-grade NAT (RFC 6598)'],
    ['100.127.255.254', 'carrier-grade NAT (RFC 6598)'],
    ['169.254.169.254', 'link-local'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['0.0.0.0', 'unspecified'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fc00::1', 'unique local (IPv6)'],
    ['fd12:3456::1', 'unique local (IPv6)'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['::ffff:0:a9fe:a9fe', 'reserved'],
    ['::ffff:0:8.8.8.8', 'reserved'],
    ['64:ff9b:1::a9fe:a9fe', 'reserved'],
    ['64:ff9b:1:ffff::1', 'reserved'],
  ])('refuses %s as %s', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private (RFC 1918)'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:c0a8:0101::1', 'private (RFC 1918)'],
  ])('judges the IPv4 address inside %s (%s)', (address, reason) => {
    expect(nonPublicReason(address)).toMatch(new RegExp(`^${reason.replace(/[()]/g, '\\$&')} \\(IPv4 `));
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::6810:84e5', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    'accepts the public address %s',
    (address) => {
      expect(nonPublicReason(address)).toBeUndefined();
    },
  );

  it('accepts only https:// by default, and http:// too when private networks are allowed', () => {
    expect(checkUrlText('https://hooks.example.com/in', false).host).toBe('hooks.example.com');
    expect(() => checkUrlText('http://hooks.example.com/in', false)).toThrow('must use https://');
    expect(checkUrlText('http://127.0.0.1:8080/in', true).host).toBe('127.0.0.1');
    expect(() => checkUrlText('ftp://hooks.example.com/', true)).toThrow(AddressRefused);
    expect(() => checkUrlText('/relative', false)).toThrow('is not an absolute URL');
  });

  it('refuses credentials in the URL', () => {
    expect(() => checkUrlText('https://user:secret@hooks.example.com/', false)).toThrow('must not carry credentials');
    expect(() => checkUrlText('https://user@hooks.example.com/', true)).toThrow('must not carry credentials');
  });

  it('strips the brackets of an IPv6 literal so that it is judged as an address', async () => {
    const target = checkUrlText('https://[::ffff:127.0.0.1]/', false);
    await expect(resolveChecked(target, false)).rejects.toThrow('loopback (IPv4 127.0.0.1 inside an IPv6 address)');
  });

  it('refuses a host when any of its addresses is not public, and answers the first address otherwise', async () => {
    const target = checkUrlText('https://hooks.example.com/', false);
    await expect(resolveChecked(target, false, resolvesTo('93.184.215.14', '10.0.0.5'))).rejects.toThrow(
      'resolves to 10.0.0.5, which is private (RFC 1918)',
    );
    await expect(resolveChecked(target, false, resolvesTo('93.184.215.14', '8.8.8.8'))).resolves.toEqual({
      address: '93.184.215.14',
      family: 4,
    });
    await expect(resolveChecked(target, true, resolvesTo('10.0.0.5'))).resolves.toEqual({ address: '10.0.0.5', family: 4 });
  });

  it('refuses a host that does not resolve', async () => {
    const target = checkUrlText('https://nowhere.invalid/', false);
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expect(resolveChecked(target, false, failing)).rejects.toThrow('host nowhere.invalid does not resolve (ENOTFOUND)');
  });

  it('resolves localhost through the system and refuses it', async () => {
    await expect(resolveChecked(checkUrlText('https://localhost:9/', false), false)).rejects.toThrow(/which is loopback/);
  });

  it('gives up on a host whose DNS answer does not come within the bound', async () => {
    const never: Resolver = () => new Promise(() => undefined);
    await expect(resolveChecked(checkUrlText('https://slow.example/', false), false, resolverWithin(50, never))).rejects.toThrow(
      'host slow.example does not resolve (no answer within 50 ms)',
    );
  });
});
