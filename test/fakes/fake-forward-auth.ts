import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { listenOnLoopback } from './listen-on-loopback.js';
import { recordRequest, type RecordedRequest } from './recorded-request.js';
import { replyText } from './reply.js';

export interface ForwardAuthUser {
  readonly user: string;
  readonly groups?: readonly string[];
  readonly name?: string;
  readonly email?: string;
  /** Logged in with a second factor (default true); `two_factor` rules need it. */
  readonly twoFactor?: boolean;
}

export type ForwardAuthPolicy = 'bypass' | 'one_factor' | 'two_factor' | 'deny';

/** One `access_control` rule; the first rule that matches decides. */
export interface ForwardAuthRule {
  /** Tested against path + query of the original URL, like Authelia's `resources`. */
  readonly resources: RegExp;
  readonly policy: ForwardAuthPolicy;
  readonly methods?: readonly string[];
  /** Exact host; any host when omitted. */
  readonly domain?: string;
}

export interface FakeForwardAuthOptions {
  /** Cookie id (value of `authelia_session`) → user. */
  readonly sessions?: Readonly<Record<string, ForwardAuthUser>>;
  readonly rules?: readonly ForwardAuthRule[];
  /** Policy when no rule matches (default `one_factor`; Authelia's own default is `deny`). */
  readonly defaultPolicy?: ForwardAuthPolicy;
  readonly portalUrl?: string;
  /** Protected hosts must be this domain or below it (default `example.test`). */
  readonly cookieDomain?: string;
  /** username → password for `Authorization: Basic` (one factor only). */
  readonly basicUsers?: Readonly<Record<string, { readonly password: string } & ForwardAuthUser>>;
}

export interface FakeForwardAuth {
  readonly url: string;
  readonly port: number;
  readonly received: RecordedRequest[];
  close(): Promise<void>;
  /** Registers a logged-in session: a request with `Cookie: authelia_session=<id>` is that user. */
  addSession(id: string, user: ForwardAuthUser | string): void;
}

interface Target {
  readonly method: string;
  readonly url: URL;
}

const COOKIE = 'authelia_session';
const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="Authorization Required"' };

/**
 * An Authelia-like forward-auth server (v4.38+ `/api/authz/*`). See shared/reference/authelia-forward-auth.md §8.
 */
export async function startFakeForwardAuth(options: FakeForwardAuthOptions = {}): Promise<FakeForwardAuth> {
  const sessions = new Map<string, ForwardAuthUser>(Object.entries(options.sessions ?? {}));
  const cookieDomain = (options.cookieDomain ?? 'example.test').toLowerCase();
  const received: RecordedRequest[] = [];
  const underCookieDomain = (host: string): boolean => host === cookieDomain || host.endsWith(`.${cookieDomain}`);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    received.push(request);
    const endpoint = request.path === '/api/authz/forward-auth' ? 'forward-auth' : request.path === '/api/authz/auth-request' ? 'auth-request' : undefined;
    if (!endpoint) return replyText(res, 404, '404 Not Found');
    if (request.method !== 'GET' && request.method !== 'HEAD') return replyText(res, 405, '405 Method Not Allowed');
    const target = endpoint === 'forward-auth' ? forwardedTarget(request) : originalTarget(request);
    const portal = parseUrl(request.query.get('authelia_url') ?? options.portalUrl ?? 'https://auth.example.test/');
    const valid = target && /^(https|wss):$/.test(target.url.protocol) && underCookieDomain(target.url.hostname)
      && portal?.protocol === 'https:' && underCookieDomain(portal.hostname);
    if (!valid || !target || !portal) return replyText(res, 400, '400 Bad Request');

    const identity = identify(request, sessions, options.basicUsers ?? {});
    if (identity === 'bad-credentials') return replyText(res, 401, '401 Unauthorized', undefined, BASIC_CHALLENGE);
    const resource = `${target.url.pathname}${target.url.search}`;
    const rule = (options.rules ?? []).find((r) => r.resources.test(resource)
      && (!r.methods || r.methods.includes(target.method)) && (!r.domain || r.domain.toLowerCase() === target.url.hostname));
    const policy = rule?.policy ?? options.defaultPolicy ?? 'one_factor';
    if (policy === 'deny') return replyText(res, 403, '403 Forbidden');
    const allowed = policy === 'bypass' || (identity !== undefined && (policy === 'one_factor' || identity.level === 2));
    if (allowed) return replyText(res, 200, '200 OK', undefined, identity ? remoteHeaders(identity.user) : {});

    const location = new URL(portal);
    location.searchParams.set('rd', target.url.href);
    location.searchParams.set('rm', target.method);
    const redirect = endpoint === 'forward-auth' && wantsHtml(request) ? (['GET', 'HEAD', 'OPTIONS'].includes(target.method) ? 302 : 303) : 401;
    if (redirect === 401) return replyText(res, 401, '401 Unauthorized', undefined, { location: location.href });
    replyText(res, redirect, `<a href="${location.href.replace(/&/g, '&amp;')}">${redirect === 302 ? '302 Found' : '303 See Other'}</a>`, 'text/html; charset=utf-8', { location: location.href });
  };

  const listener = await listenOnLoopback(handle);
  return {
    url: listener.origin,
    port: listener.port,
    received,
    close: () => listener.close(),
    addSession(id, user) {
      sessions.set(id, typeof user === 'string' ? { user } : user);
    },
  };
}

/** Caddy/Traefik style: method and URL come from `X-Forwarded-*`; a missing proto falls back to `http` (then rejected). */
function forwardedTarget(request: RecordedRequest): Target | undefined {
  const method = header(request, 'x-forwarded-method');
  const host = header(request, 'x-forwarded-host');
  if (!method || !/^[A-Z]+$/.test(method) || !host) return undefined;
  const url = parseUrl(`${header(request, 'x-forwarded-proto') ?? 'http'}://${host}${header(request, 'x-forwarded-uri') ?? '/'}`);
  return url && { method, url };
}

/** nginx `auth_request` style: `X-Original-Method` and the full `X-Original-URL`. */
function originalTarget(request: RecordedRequest): Target | undefined {
  const method = header(request, 'x-original-method');
  const url = parseUrl(header(request, 'x-original-url') ?? '');
  if (!method || !/^[A-Z]+$/.test(method) || !url) return undefined;
  return { method, url };
}

/**
 * `Authorization: Basic` first, then the session cookie. A non-Basic scheme (e.g. `Bearer` meant for the app)
 * is skipped; a malformed header or wrong Basic credentials end in 401.
 */
function identify(
  request: RecordedRequest,
  sessions: ReadonlyMap<string, ForwardAuthUser>,
  basicUsers: Readonly<Record<string, { readonly password: string } & ForwardAuthUser>>,
): { user: ForwardAuthUser; level: 1 | 2 } | 'bad-credentials' | undefined {
  const authorization = header(request, 'authorization');
  if (authorization !== undefined) {
    const match = /^(\S+) (\S+)$/.exec(authorization.trim());
    if (!match) return 'bad-credentials';
    if ((match[1] ?? '').toLowerCase() === 'basic') {
      const decoded = Buffer.from(match[2] ?? '', 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const username = decoded.slice(0, Math.max(0, colon));
      const account = colon > 0 && Object.hasOwn(basicUsers, username) ? basicUsers[username] : undefined;
      if (!account || account.password !== decoded.slice(colon + 1)) return 'bad-credentials';
      return { user: account, level: 1 };
    }
  }
  const cookieId = parseCookies(header(request, 'cookie') ?? '').get(COOKIE);
  const user = cookieId === undefined ? undefined : sessions.get(cookieId);
  return user && { user, level: user.twoFactor === false ? 1 : 2 };
}

function remoteHeaders(user: ForwardAuthUser): OutgoingHttpHeaders {
  return {
    'remote-user': user.user,
    'remote-groups': (user.groups ?? []).join(','),
    'remote-name': user.name ?? user.user,
    'remote-email': user.email ?? '',
  };
}

/** Browser-like: `Accept` lists `text/html`, or starts with `*\/*`; no `Accept` at all is not. XHR never is. */
function wantsHtml(request: RecordedRequest): boolean {
  if (header(request, 'x-requested-with') === 'XMLHttpRequest') return false;
  const types = (header(request, 'accept') ?? '').split(',').map((entry) => (entry.split(';')[0] ?? '').trim().toLowerCase());
  return types.includes('text/html') || types[0] === '*/*';
}

function parseCookies(value: string): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of value.split(';')) {
    const equals = pair.indexOf('=');
    if (equals > 0) cookies.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim());
  }
  return cookies;
}

function header(request: RecordedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseUrl(value: string): URL | undefined {
  return URL.canParse(value) ? new URL(value) : undefined;
}
