import { isIPv4, isIPv6 } from 'node:net';

/** An IP address as a number: 32 bits for IPv4, 128 bits for IPv6. IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is IPv4. */
export interface IpAddress {
  family: 4 | 6;
  value: bigint;
}

/** A network: the address with the host bits cleared, and the prefix length. */
export interface Cidr {
  family: 4 | 6;
  network: bigint;
  prefix: number;
}

const MAPPED_PREFIX = 0xffffn << 32n;
const MAPPED_MASK = ~0xffffffffn & ((1n << 128n) - 1n);

/**
 * Parses an IPv4 or IPv6 address (a zone such as `%eth0` is ignored). IPv4-mapped IPv6 addresses become
 * the IPv4 address they carry, so `::ffff:127.0.0.1` and `127.0.0.1` are the same peer. Undefined when
 * the text is not an address.
 */
export function parseIp(text: string): IpAddress | undefined {
  const address = text.trim().replace(/%.*$/, '');
  if (isIPv4(address)) return { family: 4, value: ipv4Value(address) };
  if (!isIPv6(address)) return undefined;
  const value = ipv6Value(address);
  if ((value & MAPPED_MASK) === MAPPED_PREFIX) return { family: 4, value: value & 0xffffffffn };
  return { family: 6, value };
}

/**
 * Parses `address/prefix` (or a bare address, meaning one host). An IPv4-mapped IPv6 network with a prefix of
 * at least 96 (`::ffff:10.0.0.0/104`) becomes the IPv4 network it describes. Undefined when malformed.
 */
export function parseCidr(text: string): Cidr | undefined {
  const [addressText, prefixText, extra] = text.trim().split('/');
  if (addressText === undefined || extra !== undefined) return undefined;
  const address = parseIp(addressText);
  if (!address) return undefined;
  const writtenAsV6 = addressText.includes(':');
  const writtenBits = writtenAsV6 ? 128 : 32;
  let prefix = writtenBits;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText)) return undefined;
    prefix = Number(prefixText);
    if (prefix > writtenBits) return undefined;
  }
  if (writtenAsV6 && address.family === 4) {
    // ::ffff:a.b.c.d/N covers IPv4 addresses only when N reaches into the mapped part.
    if (prefix < 96) return undefined;
    prefix -= 96;
  }
  const bits = address.family === 4 ? 32 : 128;
  return { family: address.family, network: address.value & hostMask(bits, prefix), prefix };
}

/** Whether `address` lies inside `cidr`. */
export function cidrContains(cidr: Cidr, address: IpAddress): boolean {
  if (cidr.family !== address.family) return false;
  const bits = cidr.family === 4 ? 32 : 128;
  return (address.value & hostMask(bits, cidr.prefix)) === cidr.network;
}

/**
 * A list of networks, such as `ui.auth.trusted_proxies`. Build it with {@link CidrList.parse}, which reports
 * every entry that is not a CIDR.
 */
export class CidrList {
  private constructor(private readonly networks: readonly Cidr[]) {}

  static parse(entries: readonly string[]): { list: CidrList; invalid: { index: number; entry: string }[] } {
    const networks: Cidr[] = [];
    const invalid: { index: number; entry: string }[] = [];
    entries.forEach((entry, index) => {
      const cidr = parseCidr(entry);
      if (cidr) networks.push(cidr);
      else invalid.push({ index, entry });
    });
    return { list: new CidrList(networks), invalid };
  }

  /** Whether the address (any textual form, IPv4-mapped included) is inside one of the networks. False for non-addresses. */
  contains(addressText: string): boolean {
    const address = parseIp(addressText);
    return address !== undefined && this.containsAddress(address);
  }

  /** Whether an already parsed address is inside one of the networks. */
  containsAddress(address: IpAddress): boolean {
    return this.networks.some((cidr) => cidrContains(cidr, address));
  }
}

function hostMask(bits: number, prefix: number): bigint {
  const all = (1n << BigInt(bits)) - 1n;
  return (all >> BigInt(bits - prefix)) << BigInt(bits - prefix);
}

function ipv4Value(address: string): bigint {
  return address.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

// Expects text that node:net accepted as IPv6. An embedded dotted quad counts as the last two groups.
function ipv6Value(address: string): bigint {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const v4 = ipv4Value(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
}
