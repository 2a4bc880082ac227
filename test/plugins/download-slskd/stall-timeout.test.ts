import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import slskd from '@crateflow/download-slskd';
import type { FakeSlskdPeerBehaviour } from '../../fakes/fake-slskd.js';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';
import { albumFiles, pollUntil, pollUntilDone, WANTED } from './slskd-fixtures.js';
import { batchFolder, batchUsers, setup } from './slskd-setup.js';

const FOLDER = 'Double Negative (2018)';

function peers(stuck: FakeSlskdPeerBehaviour) {
  return [
    // The stuck peer has the better folder (FLAC), so it is tried first.
    { username: 'stuck', behaviour: stuck, files: albumFiles('@@x\\Music\\Low', FOLDER, 'flac') },
    { username: 'steady', files: albumFiles('@@s\\Music\\Low', FOLDER, 'mp3') },
  ];
}

describe('download-slskd: stall_timeout', () => {
  for (const [behaviour, seen] of [['queued-forever', 'Queued, Remotely'], ['stuck-at-zero', 'InProgress']] as const) {
    it(`cancels a candidate that stays ${seen} past stall_timeout and downloads from the next peer (${behaviour})`, async (t) => {
      const { fake, client, harness, downloadsDir } = await setup(t, peers(behaviour), { config: { stall_timeout: '20m' } });
      const { ref } = await client.request(WANTED);
      await pollUntil(client, ref, 'downloading');
      for (let i = 0; i < 5; i++) await client.status(ref, WANTED);
      harness.context.clock.advance(19 * 60_000);
      assert.equal((await client.status(ref, WANTED)).state, 'downloading', 'within the limit the peer keeps its chance');
      assert.deepEqual(batchUsers(fake), ['stuck']);
      assert.ok(fake.state.transfers.records.every((r) => r.state === seen), `the fake holds every file ${seen}`);

      harness.context.clock.advance(2 * 60_000);
      const last = (await pollUntilDone(client, ref)).at(-1);
      assert.deepEqual(last, { state: 'completed', progress: 1, download_path: batchFolder(downloadsDir, ref) });
      assert.deepEqual(batchUsers(fake), ['stuck', 'steady'], 'the next peer is used');
      const cancelled = fake.received.filter((r) => r.method === 'DELETE' && r.path.startsWith('/api/v0/transfers/downloads/stuck/'));
      assert.equal(cancelled.length, 11, 'every stalled transfer is cancelled so it cannot deliver half an album later');
      assert.ok(cancelled.every((r) => r.query.get('remove') === 'true'));
      assert.ok(harness.context.log.at('warn').some((l) => /no progress for 20m/.test(JSON.stringify(l))));
    });
  }

  it('keeps a slow transfer that is still moving bytes, however long it takes in total', async (t) => {
    const { fake, client, harness } = await setup(t, [{ username: 'slow', files: albumFiles('@@s\\Music\\Low', FOLDER, 'flac') }], {
      fake: { inProgressSteps: 6 },
      config: { stall_timeout: '10m' },
    });
    const { ref } = await client.request(WANTED);
    let last = await pollUntil(client, ref, 'downloading');
    for (let i = 0; i < 30 && last.state !== 'completed'; i++) {
      harness.context.clock.advance(9 * 60_000); // each poll 9 minutes apart, bytes moving every time
      last = await client.status(ref, WANTED);
    }
    assert.equal(last.state, 'completed', JSON.stringify(last));
    assert.deepEqual(batchUsers(fake), ['slow']);
  });

  it('answers failed with retry_after_ms when every candidate stalls, so no download holds a max_active slot for ever', async (t) => {
    const { client, harness } = await setup(t, [{ username: 'stuck', behaviour: 'queued-forever', files: albumFiles('@@x\\Music\\Low', FOLDER, 'flac') }], {
      config: { stall_timeout: '5m', retry_after_all_failed_ms: 600_000 },
    });
    const { ref } = await client.request(WANTED);
    await pollUntil(client, ref, 'downloading');
    for (let i = 0; i < 5; i++) await client.status(ref, WANTED);
    harness.context.clock.advance(6 * 60_000);
    const last = (await pollUntilDone(client, ref)).at(-1);
    assert.equal(last?.state, 'failed');
    assert.equal(last?.retry_after_ms, 600_000);
    assert.match(last?.error ?? '', /stuck \(Double Negative \(2018\)\): no progress for 5m \(11 × Queued, Remotely\); cancelled/);
  });

  it('refuses a stall_timeout that is not a duration, naming the key, and defaults it to 30m', async () => {
    const base = { url: 'http://127.0.0.1:5030', api_key: 'k', downloads_dir: '/srv/slskd/downloads' };
    assert.throws(() => createPluginTestContext(slskd, { ...base, stall_timeout: '30 minutes' }), /config\.stall_timeout: must be a duration like 10s/);
    const harness = createPluginTestContext(slskd, base);
    assert.equal(harness.context.config.stall_timeout, '30m');
    assert.equal(harness.context.config.search.min_interval_ms, 10_000);
    await harness.close();
  });
});
