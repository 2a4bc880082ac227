import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashSecret, type AuthRequest } from '@crateflow/sdk';
import { ManualClock, MemoryStorage, type TestContextOverrides } from '@crateflow/sdk/testing';
import authBasic from '@crateflow/auth-basic';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function request(extra: Partial<AuthRequest> = {}, headers: Record<string, string> = {}): AuthRequest {
  return { method: 'GET', path: '/api/v1/queue/pending', headers, peer_address: '127.0.0.1', secure: false, from_trusted_proxy: true, ...extra };
}

async function create(config: Record<string, unknown>, overrides: Pick<TestContextOverrides, 'storage' | 'clock'> = {}) {
  const { context } = createPluginTestContext(authBasic, config, overrides);
  const provider = await authBasic.create(context);
  await provider.start?.();
  return { provider, log: context.log, storage: context.storage };
}

describe('auth-basic plugin', () => {
  it('accepts HTTP Basic with the configured plain password and warns that it is plain text', async () => {
    const { provider, log } = await create({ username: 'alice', password: 'correct horse' });
    assert.deepEqual(await provider.authenticate(request({}, { authorization: basic('alice', 'correct horse') })), { name: 'alice', groups: [], role: 'admin', via: 'basic' });
    assert.ok(log.at('warn').some((l) => /plain text/.test(l.msg)));
    for (const [user, password] of [['alice', 'wrong'], ['bob', 'correct horse'], ['alice', ''], ['', '']]) {
      assert.equal(await provider.authenticate(request({}, { authorization: basic(user ?? '', password ?? '') })), null);
    }
    assert.equal(await provider.authenticate(request({}, { authorization: 'Basic !!!' })), null);
    assert.equal(await provider.authenticate(request({}, { authorization: 'Bearer x' })), null);
  });

  it('accepts a password_hash and logs no warning', async () => {
    const { provider, log } = await create({ username: 'alice', password_hash: await hashSecret('s3cret: with colon') });
    assert.equal((await provider.authenticate(request({}, { authorization: basic('alice', 's3cret: with colon') })))?.via, 'basic');
    assert.equal(await provider.authenticate(request({}, { authorization: basic('alice', 's3cret') })), null);
    assert.equal(log.at('warn').length, 0);
  });

  it('reports a config with both or neither of password and password_hash, or a broken hash, as config problems', async () => {
    const check = (config: Parameters<NonNullable<typeof authBasic.checkConfig>>[0]) => authBasic.checkConfig?.(config) ?? [];
    const base = { username: 'alice', session_idle_minutes: 1440, session_max_days: 30 };
    assert.deepEqual(check(base), [{ path: '', message: 'set exactly one of password and password_hash' }]);
    assert.deepEqual(check({ ...base, password: 'x', password_hash: await hashSecret('x') }).map((p) => p.message), ['set exactly one of password and password_hash']);
    assert.deepEqual(check({ ...base, password_hash: '$scrypt$broken' }), [{ path: 'password_hash', message: 'is not a password hash; make one with npm run hash-password' }]);
    assert.deepEqual(check({ ...base, password: 'x' }), []);
  });

  it('logs in, recognises the session token, and logs out', async () => {
    const { provider, storage } = await create({ username: 'alice', password: 'pw', display_name: 'Alice' });
    assert.equal(await provider.login?.({ username: 'alice', password: 'nope' }, request()), null);
    const session = await provider.login?.({ username: 'alice', password: 'pw' }, request());
    assert.ok(session);
    assert.match(session.session_token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(session.max_age_s, 30 * 86_400);
    assert.deepEqual(await provider.authenticate(request({ session_token: session.session_token })), { name: 'alice', display_name: 'Alice', groups: [], role: 'admin', via: 'session' });
    assert.ok(![...storage.entries()].some(([key, value]) => key.includes(session.session_token) || JSON.stringify(value).includes(session.session_token)), 'storage keeps only a hash of the token');
    await provider.logout?.(session.session_token);
    assert.equal(await provider.authenticate(request({ session_token: session.session_token })), null);
    assert.equal(await provider.authenticate(request({ session_token: 'made-up-token-made-up-token' })), null);
  });

  it('keeps sessions across a restart (same storage) and ends them after the idle time', async () => {
    const clock = new ManualClock();
    const storage = new MemoryStorage();
    const first = await create({ username: 'alice', password: 'pw', session_idle_minutes: 10 }, { clock, storage });
    const session = await first.provider.login?.({ username: 'alice', password: 'pw' }, request());
    assert.ok(session);
    const again = await create({ username: 'alice', password: 'pw', session_idle_minutes: 10 }, { clock, storage });
    await clock.advance(9 * 60_000);
    assert.equal((await again.provider.authenticate(request({ session_token: session.session_token })))?.name, 'alice', 'used within the idle time');
    await clock.advance(9 * 60_000);
    assert.equal((await again.provider.authenticate(request({ session_token: session.session_token })))?.name, 'alice', 'the last use restarted the idle timer');
    await clock.advance(10 * 60_000);
    assert.equal(await again.provider.authenticate(request({ session_token: session.session_token })), null);
    assert.equal([...storage.entries('session/')].length, 0, 'the expired session is removed');
  });

  it('ends a busy session after session_max_days', async () => {
    const clock = new ManualClock();
    const { provider } = await create({ username: 'alice', password: 'pw', session_idle_minutes: 2 * 1440, session_max_days: 2 }, { clock });
    const session = await provider.login?.({ username: 'alice', password: 'pw' }, request());
    assert.ok(session);
    await clock.advance(86_400_000);
    assert.ok(await provider.authenticate(request({ session_token: session.session_token })));
    await clock.advance(86_400_000);
    assert.equal(await provider.authenticate(request({ session_token: session.session_token })), null);
  });

  it('does not honour a session of another username after the config changed', async () => {
    const storage = new MemoryStorage();
    const before = await create({ username: 'alice', password: 'pw' }, { storage });
    const session = await before.provider.login?.({ username: 'alice', password: 'pw' }, request());
    assert.ok(session);
    const after = await create({ username: 'bob', password: 'pw' }, { storage });
    assert.equal(await after.provider.authenticate(request({ session_token: session.session_token })), null);
  });
});
