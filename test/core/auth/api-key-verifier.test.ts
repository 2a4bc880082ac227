import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashSecret } from '@crateflow/sdk';
import { ApiKeyVerifier } from '../../../core/auth/api-key-verifier.js';

const PLAIN = 'plain-key-0123456789abcdef';
const HASHED = 'hashed-key-0123456789abcdef';

describe('ApiKeyVerifier', () => {
  it('recognises plain and hashed keys by name and role, and nothing else', async () => {
    const verifier = new ApiKeyVerifier([
      { name: 'node-red', key: PLAIN, role: 'approver' },
      { name: 'bot', key_hash: await hashSecret(HASHED), role: 'viewer' },
    ]);
    assert.deepEqual(await verifier.verify(PLAIN), { name: 'node-red', groups: [], role: 'approver', via: 'api-key' });
    assert.deepEqual(await verifier.verify(HASHED), { name: 'bot', groups: [], role: 'viewer', via: 'api-key' });
    for (const wrong of ['', 'x', PLAIN.slice(0, -1), `${HASHED}x`, HASHED.toUpperCase()]) assert.equal(await verifier.verify(wrong), null, wrong);
  });

  it('checks a hashed key with scrypt once, then by digest', async () => {
    const verifier = new ApiKeyVerifier([{ name: 'bot', key_hash: await hashSecret(HASHED), role: 'viewer' }]);
    const first = performance.now();
    assert.ok(await verifier.verify(HASHED));
    const scryptMs = performance.now() - first;
    const second = performance.now();
    for (let i = 0; i < 20; i++) assert.ok(await verifier.verify(HASHED));
    const cachedMs = (performance.now() - second) / 20;
    assert.ok(cachedMs * 5 < scryptMs, `a cached check took ${cachedMs.toFixed(2)} ms against ${scryptMs.toFixed(2)} ms for scrypt`);
  });

  it('reads X-API-Key and Authorization: Bearer', () => {
    assert.equal(ApiKeyVerifier.presented({ 'x-api-key': ' k1 ' }), 'k1');
    assert.equal(ApiKeyVerifier.presented({ authorization: 'Bearer k2' }), 'k2');
    assert.equal(ApiKeyVerifier.presented({ authorization: 'bearer   k3 ' }), 'k3');
    assert.equal(ApiKeyVerifier.presented({ authorization: 'Basic YTpi' }), undefined);
    assert.equal(ApiKeyVerifier.presented({ authorization: 'Bearer ' }), undefined);
    assert.equal(ApiKeyVerifier.presented({}), undefined);
  });

  it('reports keys without exactly one of key and key_hash, and malformed hashes', () => {
    const problems = ApiKeyVerifier.check([
      { name: 'ok', key: PLAIN, role: 'viewer' },
      { name: 'none', role: 'viewer' },
      { name: 'both', key: PLAIN, key_hash: '$scrypt$ln=15,r=8,p=1$AAAA$BBBB', role: 'viewer' },
      { name: 'bad', key_hash: '$scrypt$nonsense', role: 'viewer' },
    ]);
    assert.deepEqual(problems.map((p) => p.path), ['ui.auth.api_keys[1]', 'ui.auth.api_keys[2]', 'ui.auth.api_keys[3].key_hash']);
  });
});
