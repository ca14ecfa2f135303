import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { WebhookDnsServer } from '../../test/support/webhook-dns-server.js';
import {
  AddressRefused,
  CLOUD_METADATA_ADDRESSES,
  checkUrlText,
  dnsResolver,
  nonPublicReason,
  resolveChecked,
  type Resolver,
  resolverWithin,
} from './address-policy.js';

const resolvesTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

/** All eight groups, four digits each: 2001:0db8:0000:…. */
const fixedLength = (ip: ipaddr.IPv6) => ip.parts.map((part) => part.toString(16).padStart(4, '0')).join(':');

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
    ['169.254.1.1', 'link-local'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.0.8', 'reserved'],
    ['192.31.196.1', 'reserved'],
    ['192.52.193.1', 'reserved'],
    ['0.0.0.0', 'unspecified'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fc00::1', 'unique local (IPv6)'],
    ['fd12:3456::1', 'unique local (IPv6)'],
    ['fe80::1', 'link-local'],
    ['FE80::1', 'link-local'],
    ['fec0::1', 'site-local (deprecated)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo (RFC 4380)'],
    ['2001:2::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['100::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['::1:0:0:1', 'reserved'],
    ['4000::1', 'reserved'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['::8.8.8.8', 'reserved'],
    ['::808:808', 'reserved'],
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
    ['::ffff:169.254.1.1', 'link-local'],
    ['0:0:0:0:0:FFFF:7F00:0001', 'loopback'],
    ['64:ff9b::a9fe:101', 'link-local'],
    ['64:ff9b::10.0.0.1', 'private (RFC 1918)'],
    ['2002:c0a8:0101::1', 'private (RFC 1918)'],
  ])('judges the IPv4 address inside %s (%s)', (address, reason) => {
    expect(nonPublicReason(address)).toMatch(new RegExp(`^${reason.replace(/[()]/g, '\\$&')} \\(IPv4 `));
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '168.63.129.15',
    '2606:4700::6810:84e5',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('accepts the public address %s', (address) => {
    expect(nonPublicReason(address)).toBeUndefined();
  });

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

  it.each(CLOUD_METADATA_ADDRESSES)('refuses the cloud metadata or platform address %s as %s', (address, service) => {
    expect(nonPublicReason(address)).toBe(service);
    const ip = ipaddr.parse(address);
    if (ip instanceof ipaddr.IPv4) {
      expect(nonPublicReason(ip.toIPv4MappedAddress().toString())).toBe(`${service} (IPv4 ${address} inside an IPv6 address)`);
      expect(nonPublicReason(`64:ff9b::${address}`)).toBe(`${service} (IPv4 ${address} inside an IPv6 address)`);
    } else {
      expect(nonPublicReason(fixedLength(ip).toUpperCase())).toBe(service);
    }
  });

  it("refuses Azure's platform endpoint 168.63.129.16 in every spelling the URL parser accepts", async () => {
    for (const url of ['https://168.63.129.16/', 'https://2822734096/', 'https://0xa8.0x3f.0x81.0x10/', 'https://[::ffff:a83f:8110]/']) {
      await expect(resolveChecked(checkUrlText(url, false), false)).rejects.toThrow("Azure's platform endpoint (WireServer)");
    }
  });

  it('refuses the names of cloud metadata services and .internal names before resolving them', async () => {
    const asked: string[] = [];
    const resolve: Resolver = async (host) => (asked.push(host), [{ address: '93.184.215.14', family: 4 }]);
    for (const host of ['metadata.google.internal', 'METADATA.GOOGLE.INTERNAL.', 'metadata.goog', 'instance-data']) {
      await expect(resolveChecked(checkUrlText(`https://${host}/`, false), false, resolve)).rejects.toThrow(
        'which is the name of a cloud metadata service',
      );
    }
    await expect(resolveChecked(checkUrlText('https://hooks.corp.internal/', false), false, resolve)).rejects.toThrow(
      'which is a private-use name (.internal)',
    );
    expect(asked).toEqual([]);
    await expect(resolveChecked(checkUrlText('http://hooks.corp.internal/', true), true, resolve)).resolves.toBeDefined();
  });

  it('refuses whitespace and control characters rather than let the URL parser drop or encode them', () => {
    for (const [text, code] of [
      ['http://127.0.0.1:9/a\r\nX-Injected: 1', 'U+000D'],
      ['http://127.0.0.1:9/a\nb', 'U+000A'],
      ['http://127.0.0.1:9/a\tb', 'U+0009'],
      ['http://127.0.0.1:9/a b', 'U+0020'],
      [' http://127.0.0.1:9/', 'U+0020'],
      ['http://127.0.0.1:9/\u0000', 'U+0000'],
      ['http://127.0.0.1:9/\u007f', 'U+007F'],
      ['http://127.0.0.1:9/\u0085', 'U+0085'],
      ['http://127.0.0.1:9/\u00a0', 'U+00A0'],
      ['http://127.0.0.1:9/\u2028', 'U+2028'],
      ['http://127.0.0.1:9/\u200b', 'U+200B'],
      ['http://127.0.0.1:9/\u202e', 'U+202E'],
      ['http://exa\tmple.com/', 'U+0009'],
    ]) {
      expect(() => checkUrlText(text, true)).toThrow(`must not contain whitespace or control characters (${code} at position`);
    }
  });

  it('answers the URL as the WHATWG parser serialises it, the port it names, or its scheme default', () => {
    const target = checkUrlText('HTTPS://Hooks.Example.COM:443/a/../b?x=1', false);
    expect(target).toMatchObject({ host: 'hooks.example.com', port: 443 });
    expect(target.url.href).toBe('https://hooks.example.com/b?x=1');
    expect(checkUrlText('http://127.0.0.1:8080/é', true)).toMatchObject({ port: 8080, url: new URL('http://127.0.0.1:8080/%C3%A9') });
    expect(checkUrlText('http://[::1]/', true)).toMatchObject({ host: '::1', port: 80 });
    expect(checkUrlText('https://0x7f.1:1/', true)).toMatchObject({ host: '127.0.0.1', port: 1 });
    expect(checkUrlText('https://93.184.216.34:65535/', false).port).toBe(65535);
  });

  it('refuses ports outside 1-65535, and a fragment', () => {
    expect(() => checkUrlText('https://93.184.216.34:0/', false)).toThrow('has port 0, outside 1-65535');
    expect(() => checkUrlText('https://93.184.216.34:00/', false)).toThrow('has port 0, outside 1-65535');
    expect(() => checkUrlText('https://93.184.216.34:65536/', false)).toThrow('has port 65536, outside 1-65535');
    expect(() => checkUrlText('https://[::1]:99999/', true)).toThrow('has port 99999, outside 1-65535');
    expect(() => checkUrlText('https://hooks.example.com:-1/', false)).toThrow('is not an absolute URL');
    expect(() => checkUrlText('https://hooks.example.com/#', false)).toThrow('must not have a fragment');
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

  it('answers localhost names with loopback without asking DNS (RFC 6761), and refuses them', async () => {
    await expect(dnsResolver(['127.0.0.1:9'])('Api.LOCALHOST.', 50)).resolves.toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    await expect(resolveChecked(checkUrlText('https://localhost:9/', false), false)).rejects.toThrow(
      'resolves to 127.0.0.1, which is loopback',
    );
  });

  it('gives up on a host whose DNS answer does not come within the bound', async () => {
    const never: Resolver = () => new Promise(() => undefined);
    await expect(resolveChecked(checkUrlText('https://slow.example/', false), false, resolverWithin(50, never))).rejects.toThrow(
      'host slow.example does not resolve (no answer within 50 ms)',
    );
    await expect(resolveChecked(checkUrlText('https://slow.example/', false), false, never, 50)).rejects.toThrow(
      'host slow.example does not resolve (no answer within 50 ms)',
    );
  });

  describe('through a DNS server (c-ares)', () => {
    let dns: WebhookDnsServer;
    beforeAll(async () => (dns = await WebhookDnsServer.start()));
    afterAll(() => dns.stop());

    it('asks for A and AAAA, and answers both families, IPv4 first', async () => {
      dns.answers.set('both.example', { addresses: ['2606:4700::1', '93.184.215.14'] });
      await expect(dnsResolver([dns.address])('both.example', 2_000)).resolves.toEqual([
        { address: '93.184.215.14', family: 4 },
        { address: '2606:4700::1', family: 6 },
      ]);
      expect(dns.questions.filter((q) => q.name === 'both.example').map((q) => q.type)).toEqual(expect.arrayContaining(['A', 'AAAA']));
    });

    it('refuses a name with one private address among public ones', async () => {
      dns.answers.set('mixed.example', { addresses: ['93.184.215.14', 'fd00:ec2::254'] });
      await expect(resolveChecked(checkUrlText('https://mixed.example/', false), false, dnsResolver([dns.address]), 2_000)).rejects.toThrow(
        'resolves to fd00:ec2::254, which is the cloud metadata service (AWS, IPv6)',
      );
    });

    it('says why a name does not resolve', async () => {
      await expect(
        resolveChecked(checkUrlText('https://nowhere.example/', false), false, dnsResolver([dns.address]), 2_000),
      ).rejects.toThrow('host nowhere.example does not resolve (ENOTFOUND)');
    });

    it('gives up on a server that never answers at the bound, and cancels its queries', async () => {
      dns.answers.set('silent.example', { silent: true });
      const started = performance.now();
      await expect(dnsResolver([dns.address])('silent.example', 300)).rejects.toThrow('no answer within 300 ms');
      const elapsed = performance.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(1_000);
    });

    it('does not wait out the bound for a family that does not answer once the other has', async () => {
      dns.answers.set('slow-v6.example', { addresses: ['93.184.215.14'] });
      const resolve = dnsResolver([dns.address]);
      const started = performance.now();
      await expect(resolve('slow-v6.example', 5_000)).resolves.toEqual([{ address: '93.184.215.14', family: 4 }]);
      expect(performance.now() - started).toBeLessThan(1_000);
    });
  });

  describe('properties', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const group = fc.integer({ min: 0, max: 0xffff });
    /** An IPv4 address inside `cidr`. */
    const inside = (cidr: string) => {
      const [network, prefix] = ipaddr.IPv4.parseCIDR(cidr);
      const base = network.octets.reduce((n, o) => n * 256 + o, 0);
      return fc.integer({ min: 0, max: 2 ** (32 - prefix) - 1 }).map((offset) => {
        const n = base + offset;
        return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
      });
    };
    const nonPublicIpv4 = fc.oneof(
      ...[
        '0.0.0.0/8',
        '10.0.0.0/8',
        '100.64.0.0/10',
        '127.0.0.0/8',
        '169.254.0.0/16',
        '172.16.0.0/12',
        '192.0.0.0/24',
        '192.0.2.0/24',
        '192.168.0.0/16',
        '198.18.0.0/15',
        '198.51.100.0/24',
        '203.0.113.0/24',
        '224.0.0.0/4',
        '240.0.0.0/4',
      ].map(inside),
    );
    const hex = (n: number) => n.toString(16);

    it('refuses every address of the non-public IPv4 ranges, alone and inside IPv6 (mapped, NAT64, 6to4)', () => {
      fc.assert(
        fc.property(nonPublicIpv4, (address) => {
          const reason = nonPublicReason(address);
          expect(reason).toBeDefined();
          const [a, b, c, d] = address.split('.').map(Number);
          const high = hex((a << 8) | b);
          const low = hex((c << 8) | d);
          const inner = `${reason} (IPv4 ${address} inside an IPv6 address)`;
          for (const spelling of [
            `::ffff:${address}`,
            `::ffff:${high}:${low}`,
            `64:ff9b::${address}`,
            `64:ff9b::${high}:${low}`,
            `2002:${high}:${low}::1`,
          ]) {
            expect(nonPublicReason(spelling)).toBe(inner);
          }
        }),
      );
    });

    it('refuses such an address in any spelling a URL may give it (decimal, hex, octal, IPv6 forms)', async () => {
      await fc.assert(
        fc.asyncProperty(nonPublicIpv4, async (address) => {
          const [a, b, c, d] = address.split('.').map(Number);
          const n = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
          const spellings = [
            address,
            String(n),
            `0x${hex(n)}`,
            `0${n.toString(8)}`,
            [a, b, c, d].map((o) => `0x${hex(o)}`).join('.'),
            `${a}.${(b << 16) + (c << 8) + d}`,
            `[::ffff:${address}]`,
            `[0:0:0:0:0:FFFF:${hex((a << 8) | b)}:${hex((c << 8) | d)}]`,
          ];
          for (const host of spellings) {
            const target = checkUrlText(`https://${host}/`, false);
            await expect(resolveChecked(target, false)).rejects.toThrow(AddressRefused);
          }
        }),
      );
    });

    it('judges every spelling of an IPv6 address alike, and refuses all of it outside global unicast (2000::/3)', () => {
      fc.assert(
        fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), (parts) => {
          const ip = new ipaddr.IPv6(parts);
          const reason = nonPublicReason(ip.toString());
          const dotted = `${parts.slice(0, 6).map(hex).join(':')}:${parts[6] >> 8}.${parts[6] & 255}.${parts[7] >> 8}.${parts[7] & 255}`;
          for (const spelling of [ip.toNormalizedString(), fixedLength(ip), ip.toString().toUpperCase(), ip.toRFC5952String(), dotted]) {
            expect(nonPublicReason(spelling)).toBe(reason);
          }
          if (parts[0] >> 13 !== 0b001 && !ip.match(ipaddr.parseCIDR('64:ff9b::/96'))) expect(reason).toBeDefined();
        }),
      );
    });

    it('accepts public IPv4 addresses', () => {
      // 11.0.0.0/8 to 99.0.0.0/8 holds nothing special.
      fc.assert(
        fc.property(fc.integer({ min: 11, max: 99 }), octet, octet, octet, (a, b, c, d) => {
          expect(nonPublicReason(`${a}.${b}.${c}.${d}`)).toBeUndefined();
          expect(nonPublicReason(`::ffff:${a}.${b}.${c}.${d}`)).toBeUndefined();
        }),
      );
    });
  });
});
