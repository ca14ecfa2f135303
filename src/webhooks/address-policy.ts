import { Resolver as DnsResolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may be sent (decision 33): only to public addresses unless private networks are allowed. A
 * URL is judged by its text first (scheme, characters, credentials, port), then by every address its host
 * resolves to; delivery then connects to the address that was checked, so a DNS answer that changes in between
 * (rebinding) is never used unchecked.
 */

/**
 * The addresses of cloud metadata and platform services, refused by name so that the reason says what they are.
 * All but Azure's 168.63.129.16 also lie in ranges refused anyway (link-local, CGNAT, unique local); that one is
 * in Microsoft's public space and reachable only from inside Azure, where it answers the VM's platform (WireServer,
 * health probes, DNS). docs/webhooks.md lists them.
 */
export const CLOUD_METADATA_ADDRESSES: ReadonlyArray<[address: string, service: string]> = [
  ['169.254.169.254', 'the cloud metadata service (AWS, Google Cloud, Azure, Oracle Cloud, DigitalOcean, OpenStack and others)'],
  ['fd00:ec2::254', 'the cloud metadata service (AWS, IPv6)'],
  ['169.254.170.2', 'the container credentials service (AWS ECS)'],
  ['169.254.170.23', 'the pod identity agent (AWS EKS)'],
  ['fd00:ec2::23', 'the pod identity agent (AWS EKS, IPv6)'],
  ['fd20:ce::254', 'the cloud metadata service (Google Cloud, IPv6)'],
  ['168.63.129.16', "Azure's platform endpoint (WireServer)"],
  ['100.100.100.200', 'the cloud metadata service (Alibaba Cloud)'],
  ['192.0.0.192', 'the cloud metadata service (Oracle Cloud, legacy)'],
  ['fd00:c1::a9fe:a9fe', 'the cloud metadata service (Oracle Cloud, IPv6)'],
  ['169.254.0.23', 'the cloud metadata service (Tencent Cloud)'],
  ['169.254.42.42', 'the cloud metadata service (Scaleway)'],
  ['fd00:42::42', 'the cloud metadata service (Scaleway, IPv6)'],
];

/** Host names of metadata services, refused before they are resolved (they answer only inside their cloud). */
const CLOUD_METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
]);

const METADATA = new Map(CLOUD_METADATA_ADDRESSES.map(([address, service]) => [ipaddr.parse(address).toNormalizedString(), service]));

/**
 * Why each of ipaddr.js's special-purpose ranges (IANA's registries) is not public. Every range it names is refused:
 * a name missing here (one a later ipaddr.js adds) is refused as reserved, never let through; only `unicast` is
 * public. For IPv6, only global unicast (2000::/3) is public beyond that (see nonPublicReason).
 */
const RANGE_REASONS: Readonly<Record<string, string>> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (RFC 6598)',
  private: 'private (RFC 1918)',
  uniqueLocal: 'unique local (IPv6)',
  deprecatedSiteLocal: 'site-local (deprecated)',
  teredo: 'Teredo (RFC 4380)',
};

/** NAT64's well-known prefix (RFC 6052): the last 32 bits are the IPv4 address. The local-use 64:ff9b:1::/48 is refused. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
/** Global unicast: every public IPv6 address is in it; the rest of the space is reserved or special. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** The IPv4 address an IPv6 address carries: mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16). */
function embeddedIpv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address();
  const [, high6to4, low6to4, , , , high, low] = ip.parts;
  if (ip.match(NAT64)) return ipv4Of(high, low);
  if (ip.range() === '6to4') return ipv4Of(high6to4, low6to4);
  return undefined;
}

/**
 * ipaddr.js reads the deprecated IPv4-compatible spelling `::a.b.c.d` as the mapped `::ffff:a.b.c.d`, another
 * address; the URL parser serialises an IPv6 address without a dotted part, which ipaddr.js then reads bit for bit.
 * (inet_ntop, and so a DNS answer, spells ::/96 that way.)
 */
function exactIpv6(address: string): ipaddr.IPv6 {
  return ipaddr.IPv6.parse(new URL(`http://[${address.split('%')[0]}]/`).hostname.slice(1, -1));
}

function ipv4Of(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * Why `address` (an IP literal, as DNS answers it or the URL parser serialises it) is not public, or undefined when
 * it is. The parsing and the special-purpose ranges are ipaddr.js's; the metadata addresses and the embedded IPv4
 * rules are ours.
 */
export function nonPublicReason(address: string): string | undefined {
  // node:net's isIP is strict (dotted quads, IPv6); ipaddr.js alone would also read 0x7f.1 or 2130706433.
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  const ip = family === 4 ? ipaddr.IPv4.parse(address) : exactIpv6(address);
  const metadata = METADATA.get(ip.toNormalizedString());
  if (metadata) return metadata;
  if (ip instanceof ipaddr.IPv6) {
    const ipv4 = embeddedIpv4(ip);
    if (ipv4 !== undefined) {
      const inner = nonPublicReason(ipv4.toString());
      return inner && `${inner} (IPv4 ${ipv4.toString()} inside an IPv6 address)`;
    }
  }
  const range = ip.range();
  if (range !== 'unicast') return RANGE_REASONS[range] ?? 'reserved';
  if (ip instanceof ipaddr.IPv6 && !ip.match(GLOBAL_UNICAST)) return 'reserved';
  return undefined;
}

export class AddressRefused extends Error {}

export interface WebhookUrl {
  /** The URL as the WHATWG parser serialises it: what is stored, shown and called. */
  url: URL;
  /** The host without IPv6 brackets: what is resolved, and what Host and TLS SNI name. */
  host: string;
  /** The port connected to: the URL's, or its scheme's default. */
  port: number;
}

/**
 * Whitespace, control characters (C0, DEL, C1) and invisible format characters (zero-width, bidirectional
 * overrides). The URL parser would drop tabs and line breaks and percent-encode the rest, calling another URL
 * than the one given (`/a\r\nX-Injected: 1` becomes `/aX-Injected:%201`); refused instead.
 */
const UNSAFE_CHARACTER = /[\s\p{Cc}\p{Cf}]/u;

/** Only the port's digits of an authority: the URL parser refuses a port past 65535 without saying so. */
const PORT_IN_TEXT = /^[a-z][a-z\d+.-]*:\/\/(?:[^/?#@]*@)?(?:\[[^\]]*\]|[^/?#:]*):(\d+)(?:[/?#]|$)/i;

/**
 * Checks the URL's text: an absolute https:// URL (http:// too when private networks are allowed), no whitespace
 * or control characters, no credentials, no fragment, a port of 1-65535. The answer holds the URL as the WHATWG
 * parser serialises it, which is what is stored and called.
 */
export function checkUrlText(text: string, allowPrivateNetworks: boolean): WebhookUrl {
  const unsafe = UNSAFE_CHARACTER.exec(text);
  if (unsafe) {
    const code = unsafe[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    throw new AddressRefused(`must not contain whitespace or control characters (U+${code} at position ${unsafe.index})`);
  }
  if (!URL.canParse(text)) {
    const port = PORT_IN_TEXT.exec(text)?.[1];
    if (port !== undefined && Number(port) > 65_535) throw new AddressRefused(`has port ${port}, outside 1-65535`);
    throw new AddressRefused('is not an absolute URL');
  }
  const url = new URL(text);
  const schemes = allowPrivateNetworks ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw new AddressRefused(allowPrivateNetworks ? 'must use https:// or http://' : 'must use https://');
  }
  if (url.username !== '' || url.password !== '') throw new AddressRefused('must not carry credentials (user:password@)');
  if (url.hash !== '' || text.includes('#')) throw new AddressRefused('must not have a fragment (#…)');
  // The parser keeps port 0, which Node's http then replaces by the scheme's default: refused, so that the port
  // connected to is always the one the URL names.
  if (url.port === '0') throw new AddressRefused('has port 0, outside 1-65535');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === '') throw new AddressRefused('has no host');
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { url, host, port };
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** A host's addresses; fails (or answers none) when it does not resolve, and fails within `timeoutMs` at the latest. */
export type Resolver = (host: string, timeoutMs: number) => Promise<ResolvedAddress[]>;

/** RFC 6761: `localhost` and names under it are loopback, answered without asking DNS. */
const LOOPBACK: ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/** How long the other address family may still take once one has answered. */
const OTHER_FAMILY_GRACE_MS = 250;

/** Per query try; c-ares tries again (and the next server) after it, until the resolution's bound cancels it. */
const DNS_TRY_MS = 1_000;

/**
 * Resolves names with c-ares (`dns.promises.Resolver`: A and AAAA queries to `servers`, or to the system's
 * servers from /etc/resolv.conf), not with getaddrinfo (`dns.lookup`). getaddrinfo runs on libuv's threadpool
 * (four threads unless UV_THREADPOOL_SIZE says otherwise, shared with file, crypto and zlib work), cannot be
 * cancelled, and waits as long as the system's resolver options say (timeout × attempts, per address family):
 * a few names whose DNS does not answer hold every thread, and every later lookup and file access of the process
 * waits behind them, which a timeout around the call does not change. c-ares runs on the event loop; each
 * resolution has a channel of its own that `cancel()` ends at the bound, so a name that does not answer is given
 * up at `timeoutMs` and costs nothing afterwards.
 *
 * What it leaves out, knowingly: /etc/hosts and nsswitch (a receiver's name must be in DNS; `localhost` names are
 * loopback by RFC 6761 and answered here), and resolv.conf's search domains (a name is queried as written).
 */
export function dnsResolver(servers: readonly string[] = []): Resolver {
  return async (host, timeoutMs) => {
    const name = host.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) return LOOPBACK;
    const resolver = new DnsResolver({ timeout: Math.min(DNS_TRY_MS, timeoutMs), tries: 4 });
    if (servers.length > 0) resolver.setServers(servers);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      resolver.cancel();
    }, timeoutMs);
    // Once one family has answered, the other gets a moment more, not the whole bound (RFC 8305's resolution delay).
    let grace: NodeJS.Timeout | undefined;
    const answered = (addresses: string[]) => {
      if (addresses.length > 0) grace ??= setTimeout(() => resolver.cancel(), OTHER_FAMILY_GRACE_MS);
      return addresses;
    };
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(host).then(answered), resolver.resolve6(host).then(answered)]);
      const addresses: ResolvedAddress[] = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
      ];
      if (addresses.length > 0) return addresses;
      if (timedOut) throw new Error(`no answer within ${timeoutMs} ms`);
      // ENODATA (no address of that family) says less than the other family's failure (ENOTFOUND, ESERVFAIL, …).
      const failures = [v4, v6].flatMap((result) => (result.status === 'rejected' ? [result.reason as NodeJS.ErrnoException] : []));
      throw failures.find((error) => error.code !== 'ENODATA') ?? failures[0] ?? new Error('no addresses');
    } finally {
      clearTimeout(timer);
      clearTimeout(grace);
    }
  };
}

export const systemResolver: Resolver = dnsResolver();

/** `resolve` bounded by `timeoutMs`, whatever it does. */
export function resolverWithin(timeoutMs: number, resolve: Resolver = systemResolver): Resolver {
  return (host) =>
    new Promise((answer, fail) => {
      const timer = setTimeout(() => fail(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      resolve(host, timeoutMs)
        .then(answer, fail)
        .finally(() => clearTimeout(timer));
    });
}

/** Why a host name is refused before it is resolved, or undefined. */
function nonPublicName(host: string): string | undefined {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (CLOUD_METADATA_NAMES.has(name)) return 'the name of a cloud metadata service';
  if (name.endsWith('.internal')) return 'a private-use name (.internal)';
  return undefined;
}

/**
 * Resolves the host within `timeoutMs` and checks every address it has (a host with one private address among
 * public ones is refused: which one a connection would use is not ours to choose); answers the address to connect
 * to.
 */
export async function resolveChecked(
  target: WebhookUrl,
  allowPrivateNetworks: boolean,
  resolve: Resolver = systemResolver,
  timeoutMs = 15_000,
): Promise<ResolvedAddress> {
  const literal = isIP(target.host);
  let addresses: ResolvedAddress[];
  if (literal) addresses = [{ address: target.host, family: literal as 4 | 6 }];
  else {
    const refusedName = allowPrivateNetworks ? undefined : nonPublicName(target.host);
    if (refusedName) throw new AddressRefused(`names ${target.host}, which is ${refusedName}`);
    try {
      addresses = await resolverWithin(timeoutMs, resolve)(target.host, timeoutMs);
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
