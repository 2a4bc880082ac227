import { isIP } from 'node:net';
import type { PathProblem } from '../schema/format-schema-errors.js';

// A DNS name as written in config: labels of letters, digits and inner hyphens, optionally ending in a dot.
const HOST_NAME = /^(?=.{1,253}\.?$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/**
 * The `Host` names this service answers to, against DNS rebinding: a page on `rebind.attacker.example` whose
 * name is re-pointed at 127.0.0.1 is, for the browser, same-origin with the API and may read and write it; the
 * only thing it cannot change is the `Host` header, which still names the attacker's domain.
 *
 * Accepted: `localhost`, `server.host` when it is a name, every `server.allowed_hosts` entry (the names a
 * reverse proxy passes on), and any IP literal (IPv4, or IPv6 in brackets). An IP literal cannot be rebound:
 * a browser sends it only when it connected to that address, so it is this machine (or a port forward to it);
 * that is also what a Docker health check or a LAN client typing the address sends. The port is ignored:
 * proxies pass the public one (`music.example.com:8443`), and a rebinding attack differs in the name anyway.
 */
export class AllowedHosts {
  private readonly names: ReadonlySet<string>;

  constructor(listenHost: string, allowedHosts: readonly string[]) {
    const names = ['localhost', ...allowedHosts].map(asciiName);
    if (isIP(listenHost) === 0) names.push(asciiName(listenHost));
    this.names = new Set(names);
  }

  /** Config problems: each entry must be a bare host name or IP address, without scheme, port or path. */
  static check(allowedHosts: readonly string[], path = 'server.allowed_hosts'): PathProblem[] {
    return allowedHosts.flatMap((entry, i): PathProblem[] =>
      HOST_NAME.test(asciiName(entry)) || isIP(entry) !== 0
        ? []
        : [{ path: `${path}[${i}]`, message: `"${entry}" is not a host name; write the name only, without scheme, port or path (e.g. music.example.com)` }],
    );
  }

  /**
   * Whether a request's `Host` header names this service. A request without one (HTTP/1.0) is not from a
   * browser, which always sends it, so it passes.
   */
  allows(hostHeader: string | undefined): boolean {
    if (hostHeader === undefined) return true;
    const name = hostNameOf(hostHeader);
    if (name === undefined) return false;
    return isIP(name.replace(/^\[|\]$/g, '')) !== 0 || this.names.has(name);
  }
}

/** The name part of a Host header (`[::1]` keeps its brackets), lower-case, without port or trailing dot. */
function hostNameOf(hostHeader: string): string | undefined {
  const text = hostHeader.trim();
  // URL parsing handles `[v6]:port`, rejects userinfo-like or path-like junk, and lower-cases the name.
  if (text === '' || /[/?#@\\\s]/.test(text) || !URL.canParse(`http://${text}`)) return undefined;
  return normaliseName(new URL(`http://${text}`).hostname);
}

/** A configured name as a browser sends it: lower-case, internationalised names in punycode (`xn--…`). */
function asciiName(name: string): string {
  const text = name.trim();
  const canParse = text !== '' && !/[/?#@\\\s:]/.test(text) && URL.canParse(`http://${text}`);
  return normaliseName(canParse ? new URL(`http://${text}`).hostname : text);
}

function normaliseName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}
