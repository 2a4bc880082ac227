import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '@crateflow/sdk';
import { rawRequest, type RawResponse } from '../helpers/raw-request.js';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { recordOf, stringAt } from './json-fields.js';
import { routesOf, type RouteInfo } from './openapi-routes.js';

// Issue 10, part 4: the auth matrix. Every operation of GET /api/v1/openapi.json × every auth mode × every
// kind of caller → the status, printed as one table per mode and compared with what the route's role allows.
// Modes: disabled, basic, proxy (trusted_proxies 127.0.0.1/32 and ::1/128), and proxy with only ::1/128
// trusted. Every app listens on '::', so IPv4 callers arrive as IPv4-mapped IPv6 (::ffff:127.x.y.z): a peer
// outside trusted_proxies must stay untrusted in that form, 127.0.0.1 must match 127.0.0.1/32 in it, and with
// only ::1 trusted, ::ffff:127.0.0.1 must not pass. X-Forwarded-For is never a reason to trust a peer.
// Wrong credentials count against the failed-login limit per client address, so every request of a "wrong"
// caller comes from its own 127.x.y.z source address: the table shows 401s, never the limiter's 429.
//
// Sizing: about 2,000 requests in-process; under a minute.

type Role = 'viewer' | 'approver' | 'admin';
type Access = 'public' | Role;
type Mode = 'disabled' | 'basic' | 'proxy' | 'proxy, only ::1 trusted';
const MODES: readonly Mode[] = ['disabled', 'basic', 'proxy', 'proxy, only ::1 trusted'];

/** The least role each operation needs: written down here, so a change of access in the code fails this test. */
const ACCESS: Record<string, Access> = {
  'GET /api/v1/auth/info': 'public',
  'POST /api/v1/auth/login': 'public',
  'POST /api/v1/auth/logout': 'public',
  'POST /api/v1/auth/sessions/revoke': 'admin',
  'POST /api/v1/approvals/revoke': 'admin',
  'GET /api/v1/openapi.json': 'public',
  'GET /api/v1/plugins': 'viewer',
  'GET /api/v1/queue/pending': 'viewer',
  'GET /api/v1/queue': 'viewer',
  'POST /api/v1/queue/{id}/restore': 'approver',
  'POST /api/v1/queue': 'approver',
  'POST /api/v1/queue/approve': 'approver',
  'POST /api/v1/queue/reject': 'approver',
  'POST /api/v1/queue/{id}/approve': 'approver',
  'POST /api/v1/queue/{id}/reject': 'approver',
  'GET /api/v1/wishlist': 'viewer',
  'POST /api/v1/wishlist': 'approver',
  'DELETE /api/v1/wishlist/{id}': 'approver',
  'GET /api/v1/downloads': 'viewer',
  'POST /api/v1/downloads/{id}/retry': 'approver',
  'POST /api/v1/library/sync': 'approver',
  'GET /api/v1/library': 'viewer',
  'GET /api/v1/jobs': 'viewer',
  'GET /api/v1/jobs/{id}': 'viewer',
  'GET /api/v1/sources': 'viewer',
  'POST /api/v1/sources/{name}/run': 'approver',
  'GET /api/v1/webhooks': 'viewer',
  'POST /api/v1/webhooks/test': 'admin',
  'GET /api/v1/webhooks/deliveries': 'viewer',
  'POST /api/v1/webhooks/deliveries/{id}/redeliver': 'admin',
  'GET /api/v1/stats': 'viewer',
  'GET /api/v1/events/stream': 'viewer',
  'GET /api/v1/search': 'viewer',
  'GET /api/v1/covers/{mbid}': 'viewer',
  'GET /api/v1/queue/sources': 'viewer',
  'GET /api/v1/previews': 'viewer',
  'GET /api/v1/release-groups/{mbid}': 'viewer',
  // The household (issue #31). A requester (scope `request` only) is not among these callers: the roles matrix of
  // test/core/auth/roles-matrix.test.ts covers it; here, the least of viewer < approver < admin that may call.
  'GET /api/v1/requests': 'viewer',
  'POST /api/v1/requests/{id}/cancel': 'approver',
  'GET /api/v1/users': 'admin',
  'POST /api/v1/users': 'admin',
  'PATCH /api/v1/users/{name}': 'admin',
  'DELETE /api/v1/users/{name}': 'admin',
  'GET /api/v1/api-keys': 'admin',
  'POST /api/v1/api-keys': 'admin',
  'DELETE /api/v1/api-keys/{id}': 'admin',
};
const RANK: Record<Access, number> = { public: 0, viewer: 1, approver: 2, admin: 3 };

const KEYS = { viewer: 'matrix-viewer-key-0123456789', approver: 'matrix-approver-key-0123456789', admin: 'matrix-admin-key-0123456789', wrong: 'matrix-wrong-key-0123456789' };
const PASSWORD = 'correct horse battery staple';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const remote = (user: string, groups: string) => ({ 'remote-user': user, 'remote-groups': groups, 'remote-name': user.toUpperCase() });

/** Where a caller connects from: the trusted IPv4 loopback (seen as ::ffff:127.0.0.1), ::1, or an untrusted 127.x.y.z. */
type Peer = 'v4-loopback' | 'v6-loopback' | 'untrusted';

interface Caller {
  name: string;
  peer: Peer;
  headers: (session: string | undefined) => Record<string, string>;
  /** The role this caller has in a mode: undefined = no identity (401 where auth is on), null = identity without a role (403). */
  role(mode: Mode): Role | null | undefined;
}

const viaKey = (role: Role) => () => role;
const CALLERS: readonly Caller[] = [
  { name: 'no credentials', peer: 'untrusted', headers: () => ({}), role: () => undefined },
  { name: 'wrong basic password', peer: 'untrusted', headers: () => ({ authorization: basic('admin', 'wrong password') }), role: () => undefined },
  { name: 'wrong API key (Bearer)', peer: 'untrusted', headers: () => ({ authorization: `Bearer ${KEYS.wrong}` }), role: () => undefined },
  { name: 'wrong API key (X-API-Key)', peer: 'untrusted', headers: () => ({ 'x-api-key': KEYS.wrong }), role: () => undefined },
  { name: 'forged session cookie', peer: 'untrusted', headers: () => ({ cookie: 'crateflow_session=forged-0123456789abcdef' }), role: () => undefined },
  { name: 'wrong key + right basic', peer: 'untrusted', headers: () => ({ 'x-api-key': KEYS.wrong, authorization: basic('admin', PASSWORD) }), role: () => undefined },
  { name: 'session cookie (login)', peer: 'untrusted', headers: (session): Record<string, string> => (session ? { cookie: `crateflow_session=${session}` } : {}), role: (m) => (m === 'basic' ? 'admin' : undefined) },
  { name: 'basic admin', peer: 'untrusted', headers: () => ({ authorization: basic('admin', PASSWORD) }), role: (m) => (m === 'basic' ? 'admin' : undefined) },
  { name: 'API key viewer', peer: 'untrusted', headers: () => ({ 'x-api-key': KEYS.viewer }), role: viaKey('viewer') },
  { name: 'API key approver', peer: 'untrusted', headers: () => ({ authorization: `Bearer ${KEYS.approver}` }), role: viaKey('approver') },
  { name: 'API key admin (hash)', peer: 'untrusted', headers: () => ({ authorization: `Bearer ${KEYS.admin}` }), role: viaKey('admin') },
  { name: 'proxy admin via 127.0.0.1', peer: 'v4-loopback', headers: () => remote('alice', 'music-admins'), role: (m) => (m === 'proxy' ? 'admin' : undefined) },
  { name: 'proxy approver via ::1', peer: 'v6-loopback', headers: () => remote('bob', 'music-approvers,music'), role: (m) => (m.startsWith('proxy') ? 'approver' : undefined) },
  { name: 'proxy viewer via ::1', peer: 'v6-loopback', headers: () => remote('carol', 'music'), role: (m) => (m.startsWith('proxy') ? 'viewer' : undefined) },
  { name: 'proxy user, no mapped group', peer: 'v6-loopback', headers: () => remote('dave', 'strangers'), role: (m) => (m.startsWith('proxy') ? null : undefined) },
  { name: 'spoofed Remote-User, untrusted', peer: 'untrusted', headers: () => remote('mallory', 'music-admins'), role: () => undefined },
  { name: 'spoofed, untrusted + XFF 127.0.0.1', peer: 'untrusted', headers: () => ({ ...remote('mallory', 'music-admins'), 'x-forwarded-for': '127.0.0.1', forwarded: 'for=127.0.0.1' }), role: () => undefined },
  { name: 'spoofed, untrusted + XFF ::1', peer: 'untrusted', headers: () => ({ ...remote('mallory', 'music-admins'), 'x-forwarded-for': '::1, 127.0.0.1' }), role: () => undefined },
  { name: 'two Remote-User headers', peer: 'v6-loopback', headers: () => ({ ...remote('alice', 'music-admins'), 'remote-user': 'alice, mallory' }), role: () => undefined },
  // Issue #16 point 1: a DNS-rebound page (any Host name that is not ours) gets 421 everywhere, whatever it
  // carries; a page of another site gets 403 for every state-changing route, whatever the browser lends it.
  { name: 'DNS-rebound Host + API key admin', peer: 'untrusted', headers: () => ({ host: 'rebind.attacker.example', 'x-api-key': KEYS.admin }), role: viaKey('admin') },
  { name: 'cross-site page + basic admin', peer: 'untrusted', headers: () => ({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', authorization: basic('admin', PASSWORD) }), role: (m) => (m === 'basic' ? 'admin' : undefined) },
  { name: 'cross-site page + proxy admin', peer: 'v4-loopback', headers: () => ({ ...remote('alice', 'music-admins'), origin: 'https://evil.example' }), role: (m) => (m === 'proxy' ? 'admin' : undefined) },
];

async function authConfig(mode: Mode): Promise<Record<string, unknown>> {
  const api_keys = [
    { name: 'viewer-bot', key: KEYS.viewer, role: 'viewer' },
    { name: 'approver-bot', key: KEYS.approver, role: 'approver' },
    { name: 'admin-bot', key_hash: await hashSecret(KEYS.admin), role: 'admin' },
  ];
  if (mode === 'disabled') return { enabled: false, api_keys };
  if (mode === 'basic') return { enabled: true, type: 'basic', username: 'admin', password_hash: await hashSecret(PASSWORD), api_keys };
  return {
    enabled: true,
    type: 'proxy',
    trusted_headers: ['Remote-User', 'Remote-Groups', 'Remote-Name', 'Remote-Email'],
    ...(mode === 'proxy' ? {} : { trusted_proxies: ['::1/128'] }),
    roles: { 'music-admins': 'admin', 'music-approvers': 'approver', music: 'viewer' },
    api_keys,
  };
}

/** The `type` that GET /auth/info reports in a mode, which is what `x-auth-modes` lists. */
const authTypeOf = (mode: Mode): string => (mode.startsWith('proxy') ? 'proxy' : mode);

/**
 * What the matrix expects: `ok` (the route ran: any answer but 401/403/5xx), a 401/403/421, or `404` for a route the
 * document lists for other auth modes only (the host and cross-site checks come before routing).
 */
function expected(mode: Mode, caller: Caller, access: Access, info: RouteInfo): 'ok' | '401' | '403' | '404' | '421' {
  const route = info.label;
  if (caller.name.startsWith('DNS-rebound')) return '421';
  if (caller.name.startsWith('cross-site') && !route.startsWith('GET ')) return '403';
  if (info.authModes && !info.authModes.includes(authTypeOf(mode))) return '404';
  if (route === 'POST /api/v1/auth/login') return '401'; // always posted with a wrong password: the route itself says 401
  // Logging out is a state change: with a session cookie it needs a same-site Origin (login CSRF's twin).
  if (route === 'POST /api/v1/auth/logout' && caller.name === 'forged session cookie') return '403';
  if (access === 'public') return 'ok';
  const peerTrusted = mode === 'proxy' ? caller.peer !== 'untrusted' : mode === 'proxy, only ::1 trusted' ? caller.peer === 'v6-loopback' : false;
  let role = caller.role(mode);
  if (caller.name.startsWith('proxy') && !peerTrusted) role = undefined;
  if (mode === 'disabled' && !caller.name.startsWith('API key')) return 'ok'; // no authentication; keys keep their roles
  if (role === undefined) return '401';
  if (role === null || RANK[role] < RANK[access]) return '403';
  return 'ok';
}

function classify(status: number, want: string): string {
  if (status === 401 || status === 403 || status === 421) return String(status);
  // Elsewhere a 404 is an unknown id, which is past authentication: the route ran.
  if (status === 404 && want === '404') return '404';
  if (status >= 500 || status === 429 || status === 0) return `bad ${status}`;
  return 'ok';
}

/** A body and a path that reach each route's handler (unknown ids give 404, which is past authentication). */
function requestFor(route: RouteInfo, counter: () => number, hookUrl: string): { path: string; body?: string } {
  const path = route.template.replace(/\{[^}]+\}/g, 'unknown_id');
  const bodies: Record<string, unknown> = {
    'POST /api/v1/queue': { artist: `Matrix Artist ${counter()}`, album: 'Matrix' },
    'POST /api/v1/wishlist': { artist: `Matrix Wish ${counter()}`, album: 'Matrix' },
    'POST /api/v1/queue/approve': { ids: ['unknown_id'] },
    'POST /api/v1/queue/reject': { ids: ['unknown_id'] },
    'POST /api/v1/webhooks/test': { url: hookUrl, dry_run: true },
    'POST /api/v1/auth/login': { username: 'admin', password: 'not the password' },
  };
  const body = bodies[route.label];
  return body === undefined ? { path } : { path, body: JSON.stringify(body) };
}

describe('auth matrix: every route × auth mode × caller', () => {
  const apps = new Map<Mode, StartedApp>();
  let sourceOctet = 0;
  const nextSource = () => {
    sourceOctet++;
    return `127.${10 + Math.floor(sourceOctet / 250)}.${sourceOctet % 250}.${1 + (sourceOctet % 200)}`;
  };
  let counter = 0;

  before(async () => {
    for (const mode of MODES) apps.set(mode, await startApp({ config: { server: { host: '::' }, ui: { auth: await authConfig(mode) } } }));
  });
  after(async () => {
    await Promise.all([...apps.values()].map((app) => app.close()));
  });

  for (const mode of MODES) {
    it(`answers every route for every caller in ${mode} mode as the route's role allows`, async () => {
      const app = apps.get(mode);
      assert.ok(app);
      const doc = await rawRequest(`http://127.0.0.1:${app.port}/api/v1/openapi.json`);
      const routes = routesOf(JSON.parse(doc.text));
      const unclassified = routes.filter((r) => !(r.label in ACCESS)).map((r) => r.label);
      assert.deepEqual(unclassified, [], 'every operation in the OpenAPI document has its expected role in ACCESS');
      for (const route of routes) assert.equal(route.secured, ACCESS[route.label] !== 'public', `${route.label}: security in the OpenAPI document matches its access`);

      // Real sessions, from the login form (basic mode only): one for every route, one that POST /auth/logout ends.
      const login = async (): Promise<string | undefined> => {
        if (mode !== 'basic') return undefined;
        const answer = await rawRequest(`http://127.0.0.1:${app.port}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'admin', password: PASSWORD }),
          localAddress: nextSource(),
        });
        assert.equal(answer.status, 200, answer.text);
        const token = /crateflow_session=([^;]+)/.exec(String(answer.headers['set-cookie']))?.[1];
        assert.ok(token, 'the login set a session cookie');
        return token;
      };
      let session = await login();
      const sessionToEnd = await login();

      const table: string[][] = [];
      const mismatches: string[] = [];
      for (const route of routes) {
        const access = ACCESS[route.label] ?? 'admin';
        const row = [`${route.label} (${access})`];
        for (const caller of CALLERS) {
          const { path, body } = requestFor(route, () => counter++, `http://127.0.0.1:${app.port}/health`);
          const host = caller.peer === 'v6-loopback' ? '[::1]' : '127.0.0.1';
          const unsafe = route.method !== 'GET';
          const response = await send(`http://${host}:${app.port}${path}`, {
            method: route.method,
            headers: {
              accept: 'application/json',
              ...(body ? { 'content-type': 'application/json' } : {}),
              // A browser sends Origin with a state-changing request; the session row is a same-site browser.
              ...(caller.name.startsWith('session') && unsafe ? { origin: `http://127.0.0.1:${app.port}` } : {}),
              ...caller.headers(route.label === 'POST /api/v1/auth/logout' ? sessionToEnd : session),
            },
            ...(body ? { body } : {}),
            ...(caller.peer === 'untrusted' ? { localAddress: nextSource() } : {}),
          });
          const want = expected(mode, caller, access, route);
          const got = classify(response.status, want);
          row.push(`${response.status}${got === want ? '' : '!'}`);
          if (got !== want) mismatches.push(`${mode} | ${caller.name} | ${route.label}: expected ${want}, got ${response.status} ${response.text.slice(0, 160)}`);
          // Revoking ends every session, the matrix's own included: sign in again for the routes after it.
          if (route.label === 'POST /api/v1/auth/sessions/revoke' && response.status === 200) session = await login();
          if (response.status === 401 || response.status === 403 || response.status === 421) {
            assert.match(String(response.headers['content-type']), /^application\/problem\+json/, `${route.label}: a problem answer`);
            if (response.status === 401) assert.ok(response.headers['www-authenticate'], `${route.label}: 401 names a challenge`);
          }
        }
        table.push(row);
      }
      const who = await rawRequest(`http://127.0.0.1:${app.port}/api/v1/auth/info`, { headers: remote('alice', 'music-admins') });
      printTable(mode, table, mismatches, stringAt(recordOf(JSON.parse(who.text), 'auth/info'), 'type') ?? '?');
      assert.deepEqual(mismatches, [], 'every status is what the route\'s role allows for that caller');
    });
  }
});

/** One request; the event stream answers with headers and then stays open, so its connection is closed after them. */
async function send(url: string, options: Parameters<typeof rawRequest>[1]): Promise<RawResponse> {
  if (!url.includes('/events/stream')) return rawRequest(url, options);
  const { request } = await import('node:http');
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname: target.hostname.replace(/^\[|\]$/g, ''), port: target.port, path: target.pathname, headers: options?.headers, agent: false, ...(options?.localAddress ? { localAddress: options.localAddress } : {}) },
      (res) => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '' });
        res.destroy();
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function printTable(mode: Mode, table: string[][], mismatches: string[], reportedType: string): void {
  const width = Math.max(...table.map((row) => (row[0] ?? '').length));
  const header = CALLERS.map((c, i) => `${String(i + 1).padStart(2)}=${c.name}`).join('; ');
  const lines = table.map(([label = '', ...cells]) => `${label.padEnd(width)} ${cells.map((c) => c.padStart(4)).join(' ')}`);
  const numbers = `${''.padEnd(width)} ${CALLERS.map((_, i) => String(i + 1).padStart(4)).join(' ')}`;
  console.log(
    `\n=== auth matrix — ${mode} mode (auth/info type "${reportedType}") ===\nsizing: ${table.length} routes × ${CALLERS.length} callers, in-process: a few seconds per mode\ncallers: ${header}\n${numbers}\n${lines.join('\n')}\n` +
      `(a "!" marks a status the role rules do not allow)\n${mismatches.length === 0 ? 'all as expected' : mismatches.join('\n')}\n`,
  );
}
