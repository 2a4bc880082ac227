import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuthRequest } from '@crateflow/sdk';
import authProxy from '@crateflow/auth-proxy';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';

function request(headers: Record<string, string>, fromTrustedProxy: boolean | 'unsaid' = true): AuthRequest {
  return { method: 'GET', path: '/api/v1/queue/pending', headers, peer_address: '127.0.0.1', secure: true, ...(fromTrustedProxy === 'unsaid' ? {} : { from_trusted_proxy: fromTrustedProxy }) };
}

async function create(config: Record<string, unknown> = {}) {
  const test = createPluginTestContext(authProxy, config);
  return { provider: await authProxy.create(test.context), log: test.context.log };
}

const ALL = { 'remote-user': 'alice', 'remote-groups': 'music, admins,,', 'remote-name': 'Alice Liddell', 'remote-email': 'alice@example.com' };

describe('auth-proxy plugin', () => {
  it('reads Remote-User and Remote-Groups by default, ignoring Remote-Name and Remote-Email', async () => {
    const { provider } = await create();
    assert.deepEqual(await provider.authenticate(request(ALL)), { name: 'alice', groups: ['music', 'admins'], via: 'proxy' });
  });

  it('reads Remote-Name and Remote-Email when trusted_headers lists them', async () => {
    const { provider } = await create({ trusted_headers: ['Remote-User', 'Remote-Groups', 'Remote-Name', 'Remote-Email'] });
    assert.deepEqual(await provider.authenticate(request(ALL)), { name: 'alice', display_name: 'Alice Liddell', email: 'alice@example.com', groups: ['music', 'admins'], via: 'proxy' });
  });

  it('ignores Remote-Groups when trusted_headers leaves it out', async () => {
    const { provider } = await create({ trusted_headers: ['Remote-User'] });
    assert.deepEqual((await provider.authenticate(request(ALL)))?.groups, []);
  });

  it('ignores identity headers unless the server says the peer is a trusted proxy, and warns once per peer', async () => {
    const { provider, log } = await create();
    assert.equal(await provider.authenticate(request(ALL, false)), null);
    assert.equal(await provider.authenticate(request(ALL, false)), null);
    assert.equal(await provider.authenticate(request(ALL, 'unsaid')), null, 'a server that does not say counts as untrusted');
    assert.equal(log.at('warn').filter((l) => /trusted_proxies/.test(l.msg)).length, 1);
  });

  it('treats an empty or blank Remote-User as nobody', async () => {
    const { provider } = await create();
    assert.equal(await provider.authenticate(request({ 'remote-user': '' })), null);
    assert.equal(await provider.authenticate(request({ 'remote-user': '   ', 'remote-groups': 'admins' })), null);
    assert.equal(await provider.authenticate(request({})), null);
  });

  it('refuses a request that carried Remote-User twice', async () => {
    const { provider } = await create();
    assert.equal(await provider.authenticate(request({ 'remote-user': 'mallory, alice' })), null);
  });

  it('refuses trusted_headers without Remote-User', async () => {
    await assert.rejects(create({ trusted_headers: ['Remote-Groups'] }), /must list Remote-User/);
  });
});
