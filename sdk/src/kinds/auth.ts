import type { Role, Scope } from '../records.js';
import type { PluginLifecycle } from './plugin-lifecycle.js';

/**
 * What an auth plugin sees of an HTTP request. Header names are lower-case (repeated headers joined with
 * `, `). `peer_address` is the TCP peer (never a forwarded-for header); `secure` is true when the request
 * reached the server over TLS, or over https through a trusted proxy.
 *
 * @example
 * if (!req.from_trusted_proxy) return null;   // identity headers from anyone else prove nothing
 */
export interface AuthRequest {
  method: string;
  path: string;
  headers: Readonly<Record<string, string | undefined>>;
  peer_address: string;
  secure: boolean;
  /** The session cookie's value, when the request carried one. */
  session_token?: string;
  /**
   * true when the TCP peer is inside the server's `ui.auth.trusted_proxies`, decided by the server from the
   * peer address alone. Absent means false (servers before this member existed never set it).
   */
  from_trusted_proxy?: boolean;
  /** The client's address for logs and limits: the peer, or the right-most untrusted `X-Forwarded-For` hop behind a trusted proxy. */
  client_address?: string;
  /**
   * Lower-case names of headers that arrived more than once (their values are joined in `headers`, so a
   * comma-separated header such as `Remote-Groups` cannot show it otherwise). Absent from older servers.
   */
  repeated_headers?: readonly string[];
}

/**
 * Who made a request. `name` is recorded as `decided_by`. `role` is the role the plugin grants; the server
 * maps `groups` through `ui.auth.roles` when `role` is absent.
 *
 * @example
 * { name: 'alice', display_name: 'Alice', email: 'alice@example.com', groups: ['music'], via: 'proxy' }
 */
export interface Identity {
  name: string;
  display_name?: string;
  email?: string;
  groups: string[];
  role?: Role;
  /** Narrows what the identity may do below its role's scopes (an API key's `scopes`, sdk 1.6). */
  scopes?: readonly Scope[];
  via: 'session' | 'basic' | 'proxy' | 'api-key';
}

/**
 * An auth plugin (kind `auth`). `authenticate()` returns the identity carried by a request, or null.
 * Plugins that run a login form also implement `login()`/`logout()`; sessions live in plugin storage.
 *
 * @example
 * create: () => ({ type: 'proxy', async authenticate(req) {
 *   const user = req.headers['remote-user'];
 *   return user ? { name: user, groups: [], via: 'proxy' } : null;
 * } })
 */
export interface AuthProvider extends PluginLifecycle {
  /** The mode reported by `/api/v1/auth/info` (`basic`, `proxy`, …). */
  readonly type: string;
  /** The `WWW-Authenticate` value for a 401 (e.g. `Basic realm="crateflow"`). */
  readonly challenge?: string;
  authenticate(req: AuthRequest): Promise<Identity | null>;
  /**
   * Checks a username and password; returns a new session token and the identity, or null when wrong.
   * `max_age_s` is how long the browser should keep the cookie (the session's longest possible life).
   */
  login?(credentials: { username: string; password: string }, req: AuthRequest): Promise<{ session_token: string; identity: Identity; max_age_s?: number } | null>;
  /** Ends a session (no error when it does not exist). */
  logout?(session_token: string): Promise<void>;
  /**
   * Ends every session (`POST /api/v1/auth/sessions/revoke`, admin only); returns how many ended. Plugins
   * without sessions of their own leave it out, and the route is then absent.
   *
   * @example
   * async revokeSessions() { return sessions.endAll(); }
   */
  revokeSessions?(): Promise<number>;
}
