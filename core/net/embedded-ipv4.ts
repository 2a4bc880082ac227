import type { IpAddress } from './cidr.js';

const byteAt = (value: bigint, index: number): bigint => (value >> BigInt((15 - index) * 8)) & 0xffn;
const ipv4 = (value: bigint, ...indexes: number[]): IpAddress => ({
  family: 4,
  value: indexes.reduce((acc, index) => (acc << 8n) | byteAt(value, index), 0n),
});
const word = (value: bigint, index: number): bigint => (value >> BigInt((7 - index) * 16)) & 0xffffn;

/**
 * The IPv4 addresses an IPv6 address can carry to a translator that then connects over IPv4, so a policy
 * about 10.0.0.0/8 also covers `64:ff9b::10.0.0.5`: SIIT (`::ffff:0:a.b.c.d`), IPv4-compatible, well-known
 * NAT64 (`64:ff9b::/96`), local-use NAT64 (`64:ff9b:1::/48`, each RFC 6052 layout, since the operator picks
 * the prefix length) and 6to4 (`2002:AABB:CCDD::/48`). IPv4-mapped addresses are already IPv4 after parseIp.
 */
export function embeddedIPv4(address: IpAddress): IpAddress[] {
  if (address.family !== 6) return [];
  const v = address.value;
  const found: IpAddress[] = [];
  const zeroWords = (n: number) => Array.from({ length: n }, (_, i) => word(v, i)).every((w) => w === 0n);
  if (zeroWords(4) && word(v, 4) === 0xffffn && word(v, 5) === 0n) found.push(ipv4(v, 12, 13, 14, 15));
  if (zeroWords(6) && v > 1n) found.push(ipv4(v, 12, 13, 14, 15));
  if (word(v, 0) === 0x64n && word(v, 1) === 0xff9bn) {
    if ([2, 3, 4, 5].every((i) => word(v, i) === 0n)) found.push(ipv4(v, 12, 13, 14, 15));
    if (word(v, 2) === 1n) {
      // RFC 6052 §2.2: byte 8 is the zero "u" octet, which every layout skips.
      found.push(ipv4(v, 6, 7, 9, 10), ipv4(v, 7, 9, 10, 11), ipv4(v, 9, 10, 11, 12), ipv4(v, 12, 13, 14, 15));
    }
  }
  if (word(v, 0) === 0x2002n) found.push(ipv4(v, 2, 3, 4, 5));
  return found;
}
