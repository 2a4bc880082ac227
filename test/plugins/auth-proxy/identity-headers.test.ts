import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it, type TestContext } from 'node:test';
import type { AuthRequest } from '@crateflow/sdk';
import authProxy from '@crateflow/auth-proxy';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

// Issue #16 point 11: a second Remote-Groups header (a client's own, passed through by a proxy that appends
// instead of overwriting) must be refused like a second Remote-User, and names must be read as UTF-8.

/** The bytes of a UTF-8 string as Node's HTTP client sends a Latin-1 string: one byte per character. */
const utf8Bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

async function start(t: TestContext): Promise<StartedApp> {
  const app = await startApp({
    config: { ui: { auth: { enabled: true, type: 'proxy', trusted_headers: ['Remote-User', 'Remote-Groups', 'Remote-Name'], roles: { 'music-admins': 'admin', music: 'viewer' } } } },
  });
  t.after(() => app.close());
  return app;
}

/** GET /api/v1/auth/info with header values that may repeat (an array sends the header once per value). */
function info(app: StartedApp, headers: Record<string, string | string[]>): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: app.port, path: '/api/v1/auth/info', headers: { accept: 'application/json', ...headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('auth-proxy: identity headers', () => {
  it('refuses a request with two Remote-Groups headers, as it refuses two Remote-User headers', async (t) => {
    const app = await start(t);
    const twice = await info(app, { 'remote-user': 'bob', 'remote-groups': ['music', 'music-admins'] });
    assert.deepEqual(twice.body, { enabled: true, type: 'proxy', authenticated: false, user: null });
    const once = await info(app, { 'remote-user': 'bob', 'remote-groups': 'music' });
    assert.deepEqual(once.body, { enabled: true, type: 'proxy', authenticated: true, user: { name: 'bob', groups: ['music'], role: 'viewer', scopes: ['read'] } });
    const users = await info(app, { 'remote-user': ['bob', 'alice'] });
    assert.deepEqual(users.body, { enabled: true, type: 'proxy', authenticated: false, user: null });
  });

  it('decodes UTF-8 names and groups sent as raw bytes, as Authelia sends them', async (t) => {
    const app = await start(t);
    const answer = await info(app, { 'remote-user': utf8Bytes('zoë'), 'remote-name': utf8Bytes('Zoë Ångström 山田'), 'remote-groups': utf8Bytes('musique-été,music') });
    assert.deepEqual(answer.body, { enabled: true, type: 'proxy', authenticated: true, user: { name: 'zoë', display_name: 'Zoë Ångström 山田', groups: ['musique-été', 'music'], role: 'viewer', scopes: ['read'] } });
  });

  it('keeps a value that is not valid UTF-8 as Latin-1', async () => {
    const test = createPluginTestContext(authProxy, { trusted_headers: ['Remote-User', 'Remote-Name'] });
    const provider = await authProxy.create(test.context);
    const req: AuthRequest = { method: 'GET', path: '/', headers: { 'remote-user': 'jos\u00e9', 'remote-name': 'Jos\u00e9' }, peer_address: '127.0.0.1', secure: true, from_trusted_proxy: true };
    assert.deepEqual(await provider.authenticate(req), { name: 'josé', display_name: 'José', groups: [], via: 'proxy' });
  });

  it('ignores a repeated header it does not trust', async () => {
    const test = createPluginTestContext(authProxy, { trusted_headers: ['Remote-User'] });
    const provider = await authProxy.create(test.context);
    const req: AuthRequest = { method: 'GET', path: '/', headers: { 'remote-user': 'bob', 'remote-email': 'a, b' }, peer_address: '127.0.0.1', secure: true, from_trusted_proxy: true, repeated_headers: ['remote-email', 'accept'] };
    assert.deepEqual(await provider.authenticate(req), { name: 'bob', groups: [], via: 'proxy' });
  });
});
