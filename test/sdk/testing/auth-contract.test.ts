import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { definePlugin, PLUGIN_API_VERSION, Type, type AuthRequest, type Identity } from '@crateflow/sdk';
import { anonymousRequest, authContractChecks, testAuthContract } from '@crateflow/sdk/testing';

type Flaw = 'none' | 'lets-anyone-in' | 'bad-identity';

const Config = Type.Object({ header: Type.String({ default: 'remote-user', description: 'header naming the user' }) }, { additionalProperties: false });

/** A header-trusting auth plugin with an optional flaw. */
function sampleAuth(flaw: Flaw = 'none') {
  return definePlugin({
    manifest: { name: 'sample-auth', kind: 'auth', apiVersion: PLUGIN_API_VERSION, configSchema: Config },
    create: ({ config }) => ({
      type: 'proxy',
      async authenticate(req: AuthRequest): Promise<Identity | null> {
        const user = req.headers[config.header] ?? (flaw === 'lets-anyone-in' ? 'guest' : undefined);
        if (!user) return null;
        return flaw === 'bad-identity' ? JSON.parse(JSON.stringify({ name: user, via: 'magic' })) : { name: user, groups: [], via: 'proxy' };
      },
    }),
  });
}

const authenticated = () => anonymousRequest({ headers: { 'remote-user': 'alice' } });
testAuthContract(sampleAuth(), { config: {}, authenticated });

describe('auth contract kit', () => {
  it('fails an auth plugin that identifies an anonymous request', async () => {
    const found = authContractChecks(sampleAuth('lets-anyone-in'), { config: {} }).find((c) => /anonymous/.test(c.name));
    assert.ok(found);
    await assert.rejects(found.run(), /Expected values to be strictly equal/);
  });

  it('fails an auth plugin that returns an identity without groups', async () => {
    const found = authContractChecks(sampleAuth('bad-identity'), { config: {}, authenticated }).find((c) => /well-formed identity/.test(c.name));
    assert.ok(found);
    await assert.rejects(found.run(), /identity.groups must be an array of strings/);
  });
});
