import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which addresses a webhook may not connect to. Link-local ranges hold the cloud metadata services
 * (169.254.169.254 on AWS, GCP, Azure, …), whose answers include credentials; a webhook URL is an easy way to
 * make the server fetch them. LAN and loopback targets stay allowed: home automation lives there.
 *
 * The check runs on the address actually connected to (after DNS, through the HTTP client's `refuseAddress`),
 * so a name that resolves to a refused address is caught too, and IPv6 forms that carry an IPv4 address
 * (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) are judged by it.
 *
 * Returns why the address is refused, or undefined when it is allowed.
 */
export function refuseAddress(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return refuseIPv4(bare.split('.').map(Number));
  if (isIPv6(bare)) return refuseIPv6(bare);
  return undefined;
}

// Single metadata endpoints outside the link-local ranges: AWS's IPv6 IMDS and Alibaba Cloud's. Their
// surrounding ranges (ULA, carrier-grade NAT) are ordinary private networks (Tailscale uses 100.64.0.0/10).
const METADATA_IPV4 = new Set(['100.100.100.200']);
const METADATA_IPV6 = new Set(['fd00:ec2:0:0:0:0:0:254']);

function refuseIPv4(octets: number[]): string | undefined {
  if (octets[0] === 169 && octets[1] === 254) return 'link-local address (169.254.0.0/16, cloud metadata)';
  if (METADATA_IPV4.has(octets.join('.'))) return 'cloud metadata address';
  return undefined;
}

function refuseIPv6(text: string): string | undefined {
  const words = expandIPv6(text);
  if (!words) return 'unparseable IPv6 address';
  const first = words[0] ?? 0;
  if ((first & 0xffc0) === 0xfe80) return 'link-local address (fe80::/10)';
  if (METADATA_IPV6.has(words.map((w) => w.toString(16)).join(':'))) return 'cloud metadata address';
  const embedded = embeddedIPv4(words);
  if (embedded) {
    const reason = refuseIPv4(embedded);
    if (reason) return `${reason}, written as IPv6`;
  }
  return undefined;
}

/** The IPv4 address inside an IPv4-mapped, IPv4-compatible or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIPv4(words: number[]): number[] | undefined {
  const head = words.slice(0, 6);
  const zeros = (n: number) => head.slice(0, n).every((w) => w === 0);
  const mapped = zeros(5) && head[5] === 0xffff;
  const compatible = zeros(6);
  const nat64 = head[0] === 0x64 && head[1] === 0xff9b && head.slice(2).every((w) => w === 0);
  if (!mapped && !compatible && !nat64) return undefined;
  const high = words[6] ?? 0;
  const low = words[7] ?? 0;
  return [high >> 8, high & 0xff, low >> 8, low & 0xff];
}

/** Eight 16-bit words of an IPv6 address (already checked by `isIPv6`), with `::` and a dotted tail expanded. */
function expandIPv6(text: string): number[] | undefined {
  let source = text.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(source);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    source = `${source.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left = '', right] = source.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((w) => Number.parseInt(w, 16)));
  const head = parse(left);
  const tail = right === undefined ? [] : parse(right);
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (right === undefined && missing !== 0)) return undefined;
  const words = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : undefined;
}
