import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { downloadClientContractChecks, testDownloadClientContract, type DownloadClientContractOptions } from '@crateflow/sdk/testing';
import type { TSchema } from '@crateflow/sdk';
import { startFakeTransferService, type FakeTransferService } from '../../fakes/fake-transfer-service.js';
import { sampleDownloadClient, type DownloadClientFlaw } from './sample-download-client.js';

// The fake's own hooks, under the names the kit asks for.
async function startService() {
  const fake = await startFakeTransferService();
  return { ...fake, rejectCredentials: fake.rejectKeys };
}

const options = {
  service: startService,
  config: (fake: FakeTransferService) => ({ url: fake.url, api_key: fake.apiKey }),
  wanted: { id: 'w1', artist: 'Low', album: 'Double Negative', type: 'album' as const },
  pollIntervalMs: 1000,
  maxPolls: 5,
} satisfies DownloadClientContractOptions<TSchema, FakeTransferService & { rejectCredentials(): void }>;

// The kit against a correct client, registered exactly as a plugin author would.
testDownloadClientContract(sampleDownloadClient(), options);

function check(flaw: DownloadClientFlaw, name: RegExp) {
  const found = downloadClientContractChecks(sampleDownloadClient(flaw), options).find((c) => name.test(c.name));
  assert.ok(found, `no check matching ${name}`);
  return found;
}

describe('download-client contract kit', () => {
  it('fails a client that reports progress outside 0..1, naming the field', async () => {
    await assert.rejects(check('progress-out-of-range', /progress in 0\.\.1/).run(), /\/progress: must be <= 1/);
  });

  it('fails a client that reports a second, different completion', async () => {
    await assert.rejects(check('path-changes', /completion exactly once/).run(), /different download_path/);
  });

  it('fails a client that turns a 401 into a plain Error', async () => {
    await assert.rejects(check('plain-401', /401/).run(), /must surface as CredentialsError/);
  });

  it('fails a client that leaves its timers scheduled after stop()', async () => {
    await assert.rejects(check('leaks-timer', /no timer pending/).run(), /still has 1 timer\(s\) scheduled after stop\(\)/);
  });

  it('fails a test config that the plugin schema rejects, naming the key', async () => {
    const checks = downloadClientContractChecks(sampleDownloadClient(), { ...options, config: (fake: FakeTransferService) => ({ url: 'not a url', api_key: fake.apiKey }) });
    const configCheck = checks.find((c) => /configSchema/.test(c.name));
    assert.ok(configCheck);
    await assert.rejects(configCheck.run(), /\/url: must match format "uri"/);
  });

  it('asks for a 401 hook unless the client declares it uses no credentials', async () => {
    const checks = downloadClientContractChecks(sampleDownloadClient(), { ...options, service: startFakeTransferService });
    const credentialCheck = checks.find((c) => /401/.test(c.name));
    assert.ok(credentialCheck);
    await assert.rejects(credentialCheck.run(), /give the kit a service with rejectCredentials\(\)/);
    const withoutCredentials = downloadClientContractChecks(sampleDownloadClient(), { ...options, usesCredentials: false });
    assert.equal(withoutCredentials.some((c) => /401/.test(c.name)), false);
  });
});
