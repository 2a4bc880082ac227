import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which addresses a webhook may not connect to. Link-local ranges hold the cloud metadata services
 * (169.254.169.254 on AWS, GCP, Azure, …), whose answers include credentials; a webhook URL is an easy way to
 * make the server fetch them. LAN and loopback targets stay allowed: home automation lives there.
 *
 * The check runs on the address actually connected to (after DNS, through the HTTP client's `refuseAddress`),
 * so a name that resolves to a refused address is caught too, and IPv6 forms that carry an IPv4 address
 * (IPv4-mapped, SIIT, IPv4-compatible, NAT64 and local-use NAT64, 6to4: see embeddedIPv4) are judged by it.
 * This is the floor no operator setting lifts; `webhooks_policy` (applied by the host) can only refuse more.
 *
 * Returns why the address is refused, or undefined when it is allowed.
 */
export function refuseAddress(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return refuseIPv4(bare.split('.').map(Number));
  if (isIPv6(bare)) return refuseIPv6(bare);
  return undefined;
}

// Single metadata endpoints outside the link-local ranges: AWS's IPv6 IMDS, Alibaba Cloud's, and Azure's
// WireServer (168.63.129.16, which hands out VM extension settings and certificates). Their surrounding ranges
// (ULA, carrier-grade NAT, Microsoft's public space) are ordinary networks (Tailscale uses 100.64.0.0/10).
const METADATA_IPV4 = new Set(['100.100.100.200', '168.63.129.16']);
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
  for (const embedded of embeddedIPv4(words)) {
    const reason = refuseIPv4(embedded.octets);
    if (reason) return `${reason}, written as IPv6 (${embedded.form})`;
  }
  return undefined;
}

/**
 * Every IPv4 address an IPv6 address may carry to a gateway that turns it into an IPv4 connection: IPv4-mapped
 * (`::ffff:a.b.c.d`), SIIT IPv4-translated (`::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), well-known
 * NAT64 (`64:ff9b::/96`), local-use NAT64 (`64:ff9b:1::/48`, where the operator picks the prefix length, so
 * each RFC 6052 layout from /48 to /96 is tried) and 6to4 (`2002:AABB:CCDD::/48`).
 */
function embeddedIPv4(words: number[]): { form: string; octets: number[] }[] {
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  const at = (...indexes: number[]) => indexes.map((i) => bytes[i] ?? 0);
  const zeroWords = (n: number) => words.slice(0, n).every((w) => w === 0);
  const found: { form: string; octets: number[] }[] = [];
  const tail = at(12, 13, 14, 15);
  if (zeroWords(5) && words[5] === 0xffff) found.push({ form: 'IPv4-mapped', octets: tail });
  if (zeroWords(4) && words[4] === 0xffff && words[5] === 0) found.push({ form: 'SIIT', octets: tail });
  if (zeroWords(6)) found.push({ form: 'IPv4-compatible', octets: tail });
  if (words[0] === 0x64 && words[1] === 0xff9b) {
    if (words.slice(2, 6).every((w) => w === 0)) found.push({ form: 'NAT64', octets: tail });
    if (words[2] === 1) {
      // RFC 6052 §2.2: bits 64–71 are the zero "u" octet, so the address skips byte 8.
      found.push(
        { form: 'local-use NAT64 /48', octets: at(6, 7, 9, 10) },
        { form: 'local-use NAT64 /56', octets: at(7, 9, 10, 11) },
        { form: 'local-use NAT64 /64', octets: at(9, 10, 11, 12) },
        { form: 'local-use NAT64 /96', octets: tail },
      );
    }
  }
  if (words[0] === 0x2002) found.push({ form: '6to4', octets: at(2, 3, 4, 5) });
  return found;
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
