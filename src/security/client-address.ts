import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a client address is counted under, or undefined for anything that is not an IP address. IPv4 as it is
 * (also when written IPv4-mapped, `::ffff:192.0.2.1`); IPv6 as its first `ipv6PrefixLength` bits in one spelling
 * (lower case, no leading zeros), since one subscriber usually holds a whole /64 and would otherwise get a fresh
 * count from every address of it.
 */
export function addressKey(address: string | undefined, ipv6PrefixLength: number): string | undefined {
  if (address === undefined) return undefined;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return undefined;
  const words = ipv6Words(address);
  if (words.slice(0, 5).every((word) => word === 0) && words[5] === 0xffff) {
    return [words[6] >> 8, words[6] & 0xff, words[7] >> 8, words[7] & 0xff].join('.');
  }
  const masked = words.map((word, i) => word & wordMask(ipv6PrefixLength - 16 * i));
  return `${masked.map((word) => word.toString(16)).join(':')}/${ipv6PrefixLength}`;
}

/** The eight 16-bit words of an address isIPv6 accepts (`::` expanded, a trailing IPv4 part as two words, no zone). */
function ipv6Words(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const ipv4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (ipv4) {
    const [a, b, c, d] = ipv4.slice(1).map(Number);
    text = `${text.slice(0, ipv4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((word) => parseInt(word, 16)) : []);
  const [front, back] = [parse(head), parse(tail)];
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function wordMask(bits: number): number {
  const kept = Math.max(0, Math.min(16, bits));
  return (0xffff << (16 - kept)) & 0xffff;
}
