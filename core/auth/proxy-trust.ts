import { CidrList, parseIp } from '../net/cidr.js';

/**
 * What the server believes about where a request came from, given `ui.auth.trusted_proxies`. Trust is decided
 * by the TCP peer address alone; `X-Forwarded-For` and `X-Forwarded-Proto` are read only when that peer is a
 * trusted proxy, and only to find the client behind it and whether it spoke https.
 */
export class ProxyTrust {
  constructor(private readonly proxies: CidrList) {}

  /** Whether the TCP peer is one of `trusted_proxies` (IPv4, IPv6 and IPv4-mapped IPv6 alike). */
  isTrusted(peerAddress: string): boolean {
    return this.proxies.contains(peerAddress);
  }

  /**
   * The client's address: the peer itself, or, when the peer is a trusted proxy, the right-most
   * `X-Forwarded-For` hop that is not a trusted proxy (hops further left were written by the client and prove
   * nothing). When every hop is trusted, the left-most one. A malformed hop ends the walk at the hop after it.
   */
  clientAddress(peerAddress: string, forwardedFor: string | undefined): string {
    let client = normalise(peerAddress);
    if (!this.isTrusted(peerAddress) || !forwardedFor) return client;
    const hops = forwardedFor.split(',').map((hop) => hop.trim()).filter((hop) => hop.length > 0);
    for (const hop of hops.reverse()) {
      if (!parseIp(hop)) return client;
      client = normalise(hop);
      if (!this.isTrusted(hop)) return client;
    }
    return client;
  }

  /** https: the connection itself is TLS, or a trusted proxy says (X-Forwarded-Proto, first value) the client used https. */
  isSecure(peerAddress: string, encrypted: boolean, forwardedProto: string | undefined): boolean {
    if (encrypted) return true;
    if (!forwardedProto || !this.isTrusted(peerAddress)) return false;
    return forwardedProto.split(',')[0]?.trim().toLowerCase() === 'https';
  }
}

// One spelling per address, so the rate limiter counts ::ffff:10.0.0.1 and 10.0.0.1 as the same client.
function normalise(address: string): string {
  const trimmed = address.trim();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
  return mapped?.[1] ?? trimmed.toLowerCase();
}
