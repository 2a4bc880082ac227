import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { hashSecret } from '@crateflow/sdk';
import { jsonOf, rawRequest, type RawResponse } from '../../helpers/raw-request.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

// Issue #16 point 6: sessions end when the credentials change (across a restart with a changed config), and
// an admin can end them all with POST /api/v1/auth/sessions/revoke.

const PASSWORD = 'correct horse battery staple';
const VIEWER_KEY = 'viewer-key-0123456789abcdef';

// Data folders outlive one app (a restart reuses them), so they are removed after every test's apps closed.
const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-sessions-'));
  dirs.push(dir);
  return dir;
}

function start(dir: string, auth: Record<string, unknown>): Promise<StartedApp> {
  return startApp({ config: { storage: { dir }, ui: { auth: { enabled: true, type: 'basic', username: 'admin', api_keys: [{ name: 'v', key: VIEWER_KEY, role: 'viewer' }], ...auth } } } });
}

async function login(app: StartedApp, password = PASSWORD): Promise<string> {
  const answer = await rawRequest(`${app.baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: app.baseUrl },
    body: JSON.stringify({ username: 'admin', password }),
  });
  assert.equal(answer.status, 200, answer.text);
  const cookie = String(answer.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
  assert.ok(cookie?.startsWith('crateflow_session='));
  return cookie;
}

const plugins = (app: StartedApp, headers: Record<string, string>): Promise<RawResponse> =>
  rawRequest(`${app.baseUrl}/api/v1/plugins`, { headers: { accept: 'application/json', ...headers } });

const revoke = (app: StartedApp, headers: Record<string, string>): Promise<RawResponse> =>
  rawRequest(`${app.baseUrl}/api/v1/auth/sessions/revoke`, { method: 'POST', headers: { accept: 'application/json', ...headers } });

describe('POST /api/v1/auth/sessions/revoke', () => {
  it('ends every session for an admin, clears the caller\'s cookie, and leaves HTTP Basic and API keys working', async (t) => {
    const app = await start(await dataDir(), { password: PASSWORD });
    t.after(() => app.close());
    const mine = await login(app);
    const other = await login(app);
    const answer = await revoke(app, { cookie: mine, origin: app.baseUrl });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(jsonOf(answer), { revoked: 2 });
    assert.match(String(answer.headers['set-cookie']), /^crateflow_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0/);
    for (const cookie of [mine, other]) assert.equal((await plugins(app, { cookie })).status, 401);
    assert.equal((await plugins(app, { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` })).status, 200);
    assert.equal((await plugins(app, { 'x-api-key': VIEWER_KEY })).status, 200);
  });

  it('is refused to a viewer (403), to nobody (401) and to a session cookie posted from another site (403)', async (t) => {
    const app = await start(await dataDir(), { password: PASSWORD });
    t.after(() => app.close());
    const cookie = await login(app);
    assert.equal((await revoke(app, { 'x-api-key': VIEWER_KEY })).status, 403);
    assert.equal((await revoke(app, {})).status, 401);
    assert.equal((await revoke(app, { cookie, origin: 'https://evil.example' })).status, 403);
    assert.equal((await plugins(app, { cookie })).status, 200, 'the session survived');
  });

  it('does not exist in proxy mode, whose sessions belong to the forward-auth proxy', async (t) => {
    const app = await startApp({ config: { ui: { auth: { enabled: true, type: 'proxy' } } } });
    t.after(() => app.close());
    assert.equal((await revoke(app, { 'remote-user': 'alice' })).status, 404);
  });
});

describe('basic mode: sessions across a restart', () => {
  it('keeps sessions across a restart with the same credentials', async (t) => {
    const dir = await dataDir();
    const hash = await hashSecret(PASSWORD);
    const first = await start(dir, { password_hash: hash });
    const cookie = await login(first);
    await first.close();
    const second = await start(dir, { password_hash: hash });
    t.after(() => second.close());
    assert.equal((await plugins(second, { cookie })).status, 200);
  });

  it('ends every session when password_hash changed across a restart', async (t) => {
    const dir = await dataDir();
    const first = await start(dir, { password_hash: await hashSecret(PASSWORD) });
    const cookie = await login(first);
    await first.close();
    const second = await start(dir, { password_hash: await hashSecret('a new password after the leak') });
    t.after(() => second.close());
    assert.equal((await plugins(second, { cookie })).status, 401);
    assert.equal((await plugins(second, { cookie: await login(second, 'a new password after the leak') })).status, 200, 'new sessions work');
  });

  it('ends every session when a plain-text password changed across a restart', async (t) => {
    const dir = await dataDir();
    const first = await start(dir, { password: PASSWORD });
    const cookie = await login(first);
    await first.close();
    const second = await start(dir, { password: 'another password entirely' });
    t.after(() => second.close());
    assert.equal((await plugins(second, { cookie })).status, 401);
  });
});
