import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may be sent (decision 33): only to public addresses unless private networks are allowed. A
 * URL is judged by its text first (scheme, credentials), then by every address its host resolves to; delivery
 * then connects to the address that was checked, so a DNS answer that changes in between (rebinding) is never
 * used unchecked.
 */

/** Ranges that are not the public internet, each with the reason a refusal names. Node's BlockList does the matching. */
const NON_PUBLIC: ReadonlyArray<[reason: string, family: 'ipv4' | 'ipv6', network: string, prefix: number]> = [
  ['unspecified', 'ipv4', '0.0.0.0', 8],
  ['private (RFC 1918)', 'ipv4', '10.0.0.0', 8],
  ['carrier-grade NAT (RFC 6598)', 'ipv4', '100.64.0.0', 10],
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['link-local', 'ipv4', '169.254.0.0', 16],
  ['private (RFC 1918)', 'ipv4', '172.16.0.0', 12],
  ['reserved', 'ipv4', '192.0.0.0', 24],
  ['reserved', 'ipv4', '192.0.2.0', 24],
  ['reserved', 'ipv4', '192.88.99.0', 24],
  ['private (RFC 1918)', 'ipv4', '192.168.0.0', 16],
  ['reserved', 'ipv4', '198.18.0.0', 15],
  ['reserved', 'ipv4', '198.51.100.0', 24],
  ['reserved', 'ipv4', '203.0.113.0', 24],
  ['multicast', 'ipv4', '224.0.0.0', 4],
  ['reserved', 'ipv4', '240.0.0.0', 4],
  ['unspecified', 'ipv6', '::', 128],
  ['loopback', 'ipv6', '::1', 128],
  // ::/96 (IPv4-compatible, deprecated), ::ffff:0:0:0/96 (IPv4-translated, SIIT), 64:ff9b:1::/48 (local-use NAT64,
  // RFC 8215) and the other odd corners of ::/8; IPv4-mapped addresses are judged by their IPv4 part.
  ['reserved', 'ipv6', '::', 96],
  ['reserved', 'ipv6', '::ffff:0:0:0', 96],
  ['reserved', 'ipv6', '64:ff9b:1::', 48],
  ['reserved', 'ipv6', '100::', 64],
  ['reserved', 'ipv6', '2001::', 23],
  ['reserved', 'ipv6', '2001:db8::', 32],
  ['unique local (IPv6)', 'ipv6', 'fc00::', 7],
  ['link-local', 'ipv6', 'fe80::', 10],
  ['reserved', 'ipv6', 'fec0::', 10],
  ['multicast', 'ipv6', 'ff00::', 8],
];

const RULES = NON_PUBLIC.map(([reason, family, network, prefix]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { reason, family, list };
});

/** IPv6 forms that carry an IPv4 address: mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16). */
function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (!groups) return undefined;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  if (mapped || nat64) return ipv4Of(groups[6], groups[7]);
  if (groups[0] === 0x2002) return ipv4Of(groups[1], groups[2]);
  return undefined;
}

function ipv4Of(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included), or undefined. */
function expandIpv6(address: string): number[] | undefined {
  let text = address.split('%')[0].toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? left.length !== 8 : missing < 1) return undefined;
  return [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right].map((group) => parseInt(group, 16));
}

/** Why `address` (an IP literal) is not public, or undefined when it is. */
export function nonPublicReason(address: string): string | undefined {
  const family = isIP(address) === 6 ? 'ipv6' : isIP(address) === 4 ? 'ipv4' : undefined;
  if (!family) return 'not an IP address';
  if (family === 'ipv6') {
    const ipv4 = embeddedIpv4(address);
    if (ipv4 !== undefined) {
      const inner = nonPublicReason(ipv4);
      return inner && `${inner} (IPv4 ${ipv4} inside an IPv6 address)`;
    }
  }
  return RULES.find((rule) => rule.family === family && rule.list.check(address, family))?.reason;
}

export class AddressRefused extends Error {}

export interface WebhookUrl {
  url: URL;
  /** The host without IPv6 brackets: what is resolved, and what Host and TLS SNI name. */
  host: string;
}

/** Checks the URL's text: an absolute https:// URL (http:// too when private networks are allowed), no credentials. */
export function checkUrlText(text: string, allowPrivateNetworks: boolean): WebhookUrl {
  if (!URL.canParse(text)) throw new AddressRefused('is not an absolute URL');
  const url = new URL(text);
  const schemes = allowPrivateNetworks ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw new AddressRefused(allowPrivateNetworks ? 'must use https:// or http://' : 'must use https://');
  }
  if (url.username !== '' || url.password !== '') throw new AddressRefused('must not carry credentials (user:password@)');
  if (url.hash !== '') throw new AddressRefused('must not have a fragment (#…)');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === '') throw new AddressRefused('has no host');
  return { url, host };
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family as 4 | 6 }));

/** `resolve` bounded by `timeoutMs`: getaddrinfo has no timeout of its own (and runs on libuv's few threads). */
export function resolverWithin(timeoutMs: number, resolve: Resolver = systemResolver): Resolver {
  return (host) =>
    new Promise((answer, fail) => {
      const timer = setTimeout(() => fail(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      resolve(host)
        .then(answer, fail)
        .finally(() => clearTimeout(timer));
    });
}

/**
 * Resolves the host and checks every address it has (a host with one private address among public ones is
 * refused: which one a connection would use is not ours to choose); answers the address to connect to.
 */
export async function resolveChecked(
  target: WebhookUrl,
  allowPrivateNetworks: boolean,
  resolve: Resolver = systemResolver,
): Promise<ResolvedAddress> {
  const literal = isIP(target.host);
  let addresses: ResolvedAddress[];
  if (literal) addresses = [{ address: target.host, family: literal as 4 | 6 }];
  else {
    try {
      addresses = await resolve(target.host);
    } catch (error) {
      throw new AddressRefused(`host ${target.host} does not resolve (${(error as { code?: string }).code ?? (error as Error).message})`);
    }
  }
  if (addresses.length === 0) throw new AddressRefused(`host ${target.host} does not resolve`);
  if (!allowPrivateNetworks) {
    for (const { address } of addresses) {
      const reason = nonPublicReason(address);
      if (reason) throw new AddressRefused(`resolves to ${address}, which is ${reason}`);
    }
  }
  return addresses[0];
}
