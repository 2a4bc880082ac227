import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { ConfigError } from '../../../core/config/config-error.js';
import { jsonOf, rawRequest } from '../../helpers/raw-request.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

const ALICE = { 'remote-user': 'alice', 'remote-groups': 'music-admins,music', 'remote-name': 'Alice Liddell', 'remote-email': 'alice@example.com' };

async function start(t: TestContext, auth: Record<string, unknown>): Promise<StartedApp> {
  const app = await startApp({ config: { server: { host: '::', allowed_hosts: ['music.example.com'] }, ui: { auth: { enabled: true, type: 'proxy', ...auth } } } });
  t.after(() => app.close());
  return app;
}

const info = (app: StartedApp, host: string, headers: Record<string, string>) =>
  rawRequest(`http://${host}:${app.port}/api/v1/auth/info`, { headers: { accept: 'application/json', ...headers } });

describe('proxy mode', () => {
  it('reports the Remote-* identity of this request on /auth/info, with groups and the mapped role', async (t) => {
    const app = await start(t, { trusted_headers: ['Remote-User', 'Remote-Groups', 'Remote-Name', 'Remote-Email'], roles: { music: 'viewer', 'music-admins': 'admin' } });
    assert.deepEqual(jsonOf(await info(app, '127.0.0.1', ALICE)), {
      enabled: true,
      type: 'proxy',
      authenticated: true,
      user: { name: 'alice', display_name: 'Alice Liddell', email: 'alice@example.com', groups: ['music-admins', 'music'], role: 'admin', scopes: ['read', 'request', 'decide', 'admin'] },
    });
  });

  it('decides trust by the peer address as trusted_proxies lists it, in either IP family', async (t) => {
    const onlyV6 = await start(t, { trusted_proxies: ['::1/128'] });
    assert.equal((await info(onlyV6, '127.0.0.1', ALICE)).text.includes('"authenticated":false'), true, '::ffff:127.0.0.1 is not ::1');
    assert.equal((await info(onlyV6, '[::1]', ALICE)).text.includes('"authenticated":true'), true);
    const mappedCidr = await start(t, { trusted_proxies: ['::ffff:127.0.0.0/104'] });
    assert.equal((await info(mappedCidr, '127.0.0.1', ALICE)).text.includes('"authenticated":true'), true, 'a mapped-IPv6 CIDR covers the IPv4 peer');
  });

  it('never lets X-Forwarded-For make an untrusted peer trusted', async (t) => {
    const app = await start(t, { trusted_proxies: ['127.0.0.1/32'] });
    const response = await rawRequest(`http://127.0.0.1:${app.port}/api/v1/plugins`, {
      localAddress: '127.0.0.2',
      headers: { ...ALICE, 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1', forwarded: 'for=127.0.0.1' },
    });
    assert.equal(response.status, 401);
  });

  it('refuses a state-changing request with a proxy identity when the browser names another site', async (t) => {
    const app = await start(t, {});
    const post = (headers: Record<string, string>) => rawRequest(`http://127.0.0.1:${app.port}/api/v1/queue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...ALICE, ...headers },
      body: JSON.stringify({ artist: 'CSRF', album: String(Math.random()) }),
    });
    assert.equal((await post({ origin: 'https://evil.example' })).status, 403);
    assert.equal((await post({ origin: 'https://music.example.com', host: 'music.example.com' })).status, 201, 'a name in server.allowed_hosts');
    assert.equal((await post({})).status, 201, 'a script sends no Origin');
  });

  it('gives everyone the proxy lets through the admin role when ui.auth.roles is empty', async (t) => {
    const app = await start(t, {});
    assert.equal((await rawRequest(`http://127.0.0.1:${app.port}/api/v1/plugins`, { headers: { 'remote-user': 'dave' } })).status, 200);
  });

  it('refuses to start with a trusted_proxies entry that is not a CIDR, naming it', async () => {
    await assert.rejects(
      startApp({ config: { ui: { auth: { enabled: true, type: 'proxy', trusted_proxies: ['127.0.0.1/32', 'localhost', '10.0.0.0/40'] } } } }),
      (err: unknown) => err instanceof ConfigError && err.problems.map((p) => p.path).join() === 'ui.auth.trusted_proxies[1],ui.auth.trusted_proxies[2]',
    );
  });

  it('refuses to start with an API key that has neither key nor key_hash', async () => {
    await assert.rejects(
      startApp({ config: { ui: { auth: { api_keys: [{ name: 'bot', role: 'viewer' }] } } } }),
      (err: unknown) => err instanceof ConfigError && err.problems.some((p) => p.path === 'ui.auth.api_keys[0]'),
    );
  });
});
