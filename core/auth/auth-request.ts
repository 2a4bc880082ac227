import type { IncomingHttpHeaders } from 'node:http';
import type { Context } from 'koa';
import type { AuthRequest } from '@crateflow/sdk';
import type { ProxyTrust } from './proxy-trust.js';
import { SESSION_COOKIE } from './session-cookie.js';

/**
 * What the auth layer (and an auth plugin) sees of a Koa request: lower-case headers with repeats joined by
 * `, ` (and which ones were repeated), the TCP peer, whether that peer is a trusted proxy, the client behind it, whether the client used
 * https, and the session cookie.
 */
export function describeRequest(ctx: Context, trust: ProxyTrust): AuthRequest {
  const headers = flattenHeaders(ctx.req.headers);
  const peer = ctx.req.socket.remoteAddress ?? '';
  const sessionToken = ctx.cookies.get(SESSION_COOKIE);
  return {
    method: ctx.method,
    path: ctx.path,
    headers,
    peer_address: peer,
    from_trusted_proxy: trust.isTrusted(peer),
    client_address: trust.clientAddress(peer, headers['x-forwarded-for']),
    secure: trust.isSecure(peer, isTlsSocket(ctx.req.socket), headers['x-forwarded-proto']),
    ...(sessionToken ? { session_token: sessionToken } : {}),
    repeated_headers: repeatedHeaders(ctx.req.rawHeaders),
  };
}

/** Names (lower-case) that occur more than once in the raw header list `[name, value, name, value, …]`. */
function repeatedHeaders(raw: readonly string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]?.toLowerCase() ?? '';
    if (seen.has(name)) repeated.add(name);
    seen.add(name);
  }
  return [...repeated];
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

/**
 * Whether the connection is TLS, by the `encrypted` flag every TLSSocket carries, not `instanceof TLSSocket`:
 * importing node:tls for the check would load TLS (and its secure context) into a service that serves plain HTTP.
 */
function isTlsSocket(socket: object): boolean {
  return Reflect.get(socket, 'encrypted') === true;
}
