import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { jsonOf, rawRequest, type RawRequestOptions, type RawResponse } from '../../helpers/raw-request.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { startApp, type StartAppOptions, type StartedApp } from '../../helpers/start-app.js';

const PASSWORD = 'correct horse battery';
const BASIC_AUTH = { enabled: true, type: 'basic', username: 'admin', password: PASSWORD };

/** Starts an app in basic mode; `auth` replaces the whole ui.auth block when it names another type. */
async function start(t: TestContext, auth: Record<string, unknown> = {}, options: Omit<StartAppOptions, 'config'> = {}): Promise<StartedApp> {
  const block = auth.type !== undefined || auth.enabled === false ? auth : { ...BASIC_AUTH, ...auth };
  const app = await startApp({ ...options, config: { ui: { auth: block } } });
  t.after(() => app.close());
  return app;
}

function send(app: StartedApp, method: string, path: string, options: RawRequestOptions & { json?: unknown } = {}): Promise<RawResponse> {
  const body = options.json === undefined ? options.body : JSON.stringify(options.json);
  return rawRequest(`${app.baseUrl}${path}`, {
    ...options,
    method,
    headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
    ...(body !== undefined ? { body } : {}),
  });
}

const login = (app: StartedApp, password = PASSWORD, options: RawRequestOptions = {}) =>
  send(app, 'POST', '/api/v1/auth/login', { ...options, json: { username: 'admin', password } });

function sessionCookie(response: RawResponse): string {
  const setCookie = response.headers['set-cookie']?.[0];
  assert.ok(setCookie, `expected Set-Cookie, got ${response.status} ${response.text}`);
  return setCookie;
}

/** The `Cookie` request header for a `Set-Cookie` answer. */
const cookieOf = (response: RawResponse) => sessionCookie(response).split(';')[0] ?? '';

const sameSite = (app: StartedApp) => ({ origin: `http://127.0.0.1:${app.port}` });

describe('basic mode: login sessions', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie on login and accepts it afterwards', async (t) => {
    const app = await start(t);
    const response = await login(app);
    assert.equal(response.status, 200);
    assert.deepEqual(jsonOf(response), { enabled: true, type: 'basic', authenticated: true, user: { name: 'admin', groups: [], role: 'admin', scopes: ['read', 'request', 'decide', 'admin'] } });
    assert.match(sessionCookie(response), /^crateflow_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=2592000$/);
    const cookie = cookieOf(response);
    assert.equal((await send(app, 'GET', '/api/v1/plugins', { headers: { cookie } })).status, 200);
    const info = jsonOf(await send(app, 'GET', '/api/v1/auth/info', { headers: { cookie } }));
    assert.deepEqual(info, { enabled: true, type: 'basic', authenticated: true, user: { name: 'admin', groups: [], role: 'admin', scopes: ['read', 'request', 'decide', 'admin'] } });
  });

  it('marks the cookie Secure only when https is proven: TLS, or X-Forwarded-Proto from a trusted proxy', async (t) => {
    const app = await start(t);
    assert.doesNotMatch(sessionCookie(await login(app)), /Secure/);
    assert.match(sessionCookie(await login(app, PASSWORD, { headers: { 'x-forwarded-proto': 'https' } })), /; Secure$/);
    const untrusted = await login(app, PASSWORD, { headers: { 'x-forwarded-proto': 'https' }, localAddress: '127.0.0.2' });
    assert.doesNotMatch(sessionCookie(untrusted), /Secure/, 'a peer outside trusted_proxies cannot claim https');
  });

  it('answers a wrong password with a 401 problem that does not open a browser password dialog', async (t) => {
    const app = await start(t);
    const response = await login(app, 'wrong');
    assert.equal(response.status, 401);
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    assert.equal(response.headers['www-authenticate'], 'Bearer realm="crateflow"');
    assert.equal(response.headers['set-cookie'], undefined);
  });

  it('ends the session on logout and clears the cookie', async (t) => {
    const app = await start(t);
    const cookie = cookieOf(await login(app));
    const logout = await send(app, 'POST', '/api/v1/auth/logout', { headers: { cookie, ...sameSite(app) } });
    assert.equal(logout.status, 204);
    assert.match(sessionCookie(logout), /^crateflow_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0$/);
    assert.equal((await send(app, 'GET', '/api/v1/plugins', { headers: { cookie } })).status, 401);
    assert.equal((await send(app, 'POST', '/api/v1/auth/logout')).status, 204, 'logout without a session is fine');
  });

  it('keeps sessions across a restart on the same storage dir', async (t) => {
    const storageDir = await mkdtemp(join(tmpdir(), 'crateflow-sessions-'));
    const config = { ui: { auth: BASIC_AUTH }, storage: { dir: storageDir } };
    const first = await startApp({ config });
    const cookie = cookieOf(await login(first));
    await first.close();
    const second = await startApp({ config });
    t.after(async () => {
      await second.close();
      await rm(storageDir, { recursive: true, force: true });
    });
    assert.equal((await send(second, 'GET', '/api/v1/plugins', { headers: { cookie } })).status, 200);
  });

  it('ends a session after session_idle_minutes without use', async (t) => {
    const clock = new ManualClock();
    const app = await start(t, { session_idle_minutes: 5 }, { clock });
    const cookie = cookieOf(await login(app));
    await clock.advance(4 * 60_000);
    assert.equal((await send(app, 'GET', '/api/v1/plugins', { headers: { cookie } })).status, 200);
    await clock.advance(4 * 60_000);
    assert.equal((await send(app, 'GET', '/api/v1/plugins', { headers: { cookie } })).status, 200, 'use restarts the idle time');
    await clock.advance(5 * 60_000);
    assert.equal((await send(app, 'GET', '/api/v1/plugins', { headers: { cookie } })).status, 401);
  });

  it('has no login route in proxy mode', async (t) => {
    const app = await start(t, { enabled: true, type: 'proxy' });
    assert.equal((await login(app)).status, 404);
  });
});

describe('basic mode: failed-login rate limit', () => {
  it('answers 429 with Retry-After after 10 failures from one client, even for the right password, until the window passes', async (t) => {
    const clock = new ManualClock();
    const app = await start(t, {}, { clock });
    for (let i = 0; i < 10; i++) assert.equal((await login(app, `wrong ${i}`)).status, 401);
    const locked = await login(app);
    assert.equal(locked.status, 429);
    assert.equal(locked.headers['retry-after'], '900');
    assert.match(String(locked.headers['content-type']), /^application\/problem\+json/);
    const basic = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
    const api = await send(app, 'GET', '/api/v1/plugins', { headers: { authorization: basic } });
    assert.equal(api.status, 429, 'HTTP Basic is refused too');
    assert.ok(Number(api.headers['retry-after']) > 0);
    assert.equal((await send(app, 'GET', '/api/v1/plugins', { headers: { 'x-api-key': 'not-a-key-0123456789' } })).status, 401, 'no keys are configured, so this is no login attempt');
    await clock.advance(15 * 60_000);
    assert.equal((await login(app)).status, 200);
  });

  it('counts per client: the right-most untrusted X-Forwarded-For hop behind a trusted proxy, else the peer', async (t) => {
    const app = await start(t);
    for (let i = 0; i < 10; i++) assert.equal((await login(app, 'wrong', { headers: { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.1` } })).status, 401);
    assert.equal((await login(app, 'wrong', { headers: { 'x-forwarded-for': '203.0.113.1' } })).status, 429, 'the client cannot dodge by writing hops on the left');
    assert.equal((await login(app, 'wrong', { headers: { 'x-forwarded-for': '203.0.113.2' } })).status, 401, 'another client behind the proxy is not locked out');
    assert.equal((await login(app, 'wrong')).status, 401, 'nor is the proxy itself');
    for (let i = 0; i < 10; i++) assert.equal((await login(app, 'wrong', { localAddress: '127.0.0.2', headers: { 'x-forwarded-for': `192.0.2.${i}` } })).status, 401);
    assert.equal((await login(app, 'wrong', { localAddress: '127.0.0.2', headers: { 'x-forwarded-for': '192.0.2.99' } })).status, 429, 'an untrusted peer is counted by its own address');
  });
});

describe('basic mode: CSRF protection', () => {
  it('refuses state-changing requests with the session cookie unless Origin or Referer is this site', async (t) => {
    const app = await start(t);
    const cookie = cookieOf(await login(app));
    const post = (headers: Record<string, string>) => send(app, 'POST', '/api/v1/queue', { headers: { cookie, ...headers }, json: { artist: 'CSRF', album: String(Math.random()) } });
    const cases: [string, Record<string, string>, number][] = [
      ['no Origin or Referer', {}, 403],
      ['another site', { origin: 'https://evil.example' }, 403],
      ['an opaque origin', { origin: 'null' }, 403],
      ['a look-alike host', { origin: `http://127.0.0.1.evil.example:${app.port}` }, 403],
      ['a Referer of another site', { referer: 'https://evil.example/page' }, 403],
      ['this site as Origin', sameSite(app), 201],
      ['this site as Referer', { referer: `http://127.0.0.1:${app.port}/queue` }, 201],
      ['the proxy-reported host as Origin', { origin: 'https://music.example.com', 'x-forwarded-host': 'music.example.com' }, 201],
    ];
    for (const [why, headers, status] of cases) {
      const response = await post(headers);
      assert.equal(response.status, status, why);
      if (status === 403) assert.match(response.text, /cross-site-request/, why);
    }
    assert.equal((await send(app, 'GET', '/api/v1/plugins', { headers: { cookie } })).status, 200, 'reads need no Origin');
  });

  it('refuses HTTP Basic only when a browser names another site, and never API keys', async (t) => {
    const app = await start(t, { api_keys: [{ name: 'bot', key: 'bot-key-0123456789abcdef', role: 'approver' }] });
    const basic = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };
    const post = (headers: Record<string, string>) => send(app, 'POST', '/api/v1/queue', { headers, json: { artist: 'CSRF', album: String(Math.random()) } });
    assert.equal((await post(basic)).status, 201, 'curl sends no Origin');
    assert.equal((await post({ ...basic, origin: 'https://evil.example' })).status, 403);
    assert.equal((await post({ 'x-api-key': 'bot-key-0123456789abcdef', origin: 'https://evil.example' })).status, 201);
  });

  it('refuses a login or logout posted from another site', async (t) => {
    const app = await start(t);
    assert.equal((await login(app, PASSWORD, { headers: { origin: 'https://evil.example' } })).status, 403);
    const cookie = cookieOf(await login(app, PASSWORD, { headers: sameSite(app) }));
    assert.equal((await send(app, 'POST', '/api/v1/auth/logout', { headers: { cookie, origin: 'https://evil.example' } })).status, 403);
    assert.equal((await send(app, 'GET', '/api/v1/plugins', { headers: { cookie } })).status, 200, 'the session is still alive');
  });
});

describe('unauthenticated browsers', () => {
  const page = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

  it('sends a browser asking for a UI page in basic mode to /login with a 302', async (t) => {
    const app = await start(t);
    const response = await send(app, 'GET', '/queue?sort=score', { headers: page });
    assert.equal(response.status, 302);
    assert.equal(response.headers.location, '/login?next=%2Fqueue%3Fsort%3Dscore');
    const cookie = cookieOf(await login(app));
    assert.notEqual((await send(app, 'GET', '/queue', { headers: { ...page, cookie } })).status, 302, 'a signed-in browser gets the page');
    assert.notEqual((await send(app, 'GET', '/login', { headers: page })).status, 302, 'the login page itself is reachable');
    assert.notEqual((await send(app, 'GET', '/assets/app.js', { headers: { accept: '*/*' } })).status, 302, 'assets are not pages');
  });

  it('never redirects /health or the API, and keeps /health and /auth/info public', async (t) => {
    const app = await start(t);
    const health = await send(app, 'GET', '/health', { headers: page });
    assert.equal(health.status, 200);
    assert.equal(health.headers['www-authenticate'], undefined);
    const api = await send(app, 'GET', '/api/v1/plugins', { headers: page });
    assert.equal(api.status, 401);
    assert.equal(api.headers['www-authenticate'], 'Basic realm="crateflow", charset="UTF-8"');
    assert.equal((await send(app, 'GET', '/api/v1/auth/info', { headers: page })).status, 200);
  });

  it('does not redirect in proxy mode or with authentication disabled', async (t) => {
    for (const auth of [{ enabled: true, type: 'proxy' }, { enabled: false }]) {
      const app = await start(t, auth);
      assert.notEqual((await send(app, 'GET', '/queue', { headers: page })).status, 302, JSON.stringify(auth));
    }
  });
});
