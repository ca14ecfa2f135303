import { BlockList, isIPv4 } from 'node:net';
import type { ForwardHeadersStrategy } from '../config/security-config.js';

/**
 * The proxies trusted to report a client's address: loopback, private and link-local ranges, as Tomcat's
 * RemoteIpValve (what Spring's `native` strategy uses) trusts by default.
 */
const INTERNAL_PROXIES = new BlockList();
for (const [network, prefix] of [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['127.0.0.0', 8], ['169.254.0.0', 16], ['100.64.0.0', 10]] as const) {
  INTERNAL_PROXIES.addSubnet(network, prefix, 'ipv4');
}
INTERNAL_PROXIES.addAddress('::1', 'ipv6');
INTERNAL_PROXIES.addSubnet('fc00::', 7, 'ipv6');
INTERNAL_PROXIES.addSubnet('fe80::', 10, 'ipv6');

function normalize(address: string): string {
  const trimmed = address.trim();
  // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d.
  return /^::ffff:/i.test(trimmed) && isIPv4(trimmed.slice(7)) ? trimmed.slice(7) : trimmed;
}

function isInternal(address: string): boolean {
  try {
    return INTERNAL_PROXIES.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
  } catch {
    return false;
  }
}

/**
 * Who a request came from. By default the connection's peer, forwarded headers ignored (anyone can send them).
 * With `native` (or `framework`), a peer that is an internal proxy may speak for the client: X-Forwarded-For is
 * read from the right, skipping internal proxies, and the first other address is the client.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, strategy: ForwardHeadersStrategy): string {
  const remote = normalize(peer ?? 'unknown');
  if (strategy === 'none' || forwardedFor === undefined || !isInternal(remote)) return remote;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',').map(normalize).filter((hop) => hop !== '');
  for (let index = hops.length - 1; index >= 0; index--) {
    if (!isInternal(hops[index])) return hops[index];
  }
  return hops[0] ?? remote;
}
