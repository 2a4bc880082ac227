import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { albumFiles, pollUntilDone } from './slskd-fixtures.js';
import { posted, setup } from './slskd-setup.js';

const GREATEST = { id: 'w_low_gh', artist: 'Low', album: 'Greatest Hits', type: 'album' as const };

describe('download-slskd: never the wrong album', () => {
  it('downloads nothing and answers failed with retry_after_ms (back to wanted) when the only exact match is a low-bitrate rip and other artists share a FLAC album of that title', async (t) => {
    const { fake, client } = await setup(
      t,
      [
        { username: 'queen fan', files: albumFiles('@@q\\Music\\Queen', 'Greatest Hits (1981)', 'flac') },
        { username: 'abba fan', files: albumFiles('@@a\\Music\\ABBA', 'Greatest Hits', 'flac') },
        { username: 'rip', files: albumFiles('@@r\\Music\\Low', 'Greatest Hits', 'mp3', 11, { bitRate: 96 }) },
      ],
      { config: { retry_after_no_results_ms: 3_600_000 } },
    );
    const { ref } = await client.request(GREATEST);
    const last = (await pollUntilDone(client, ref, GREATEST)).at(-1);
    assert.equal(last?.state, 'failed');
    assert.equal(last?.retry_after_ms, 3_600_000, 'the core puts the item back to wanted for a later try');
    assert.match(last?.error ?? '', /no usable slskd search results for "Low Greatest Hits" or "Greatest Hits"/);
    const searches = posted(fake, '/searches').length;
    assert.equal(searches, 2, 'the {album}-only fallback ran and found the other artists');
    assert.equal(fake.received.filter((r) => r.method === 'POST' && r.path.includes('/transfers/downloads')).length, 0, 'nothing was downloaded');
  });

  it('downloads the wanted artist\'s MP3 copy, never another artist\'s FLAC album of the same title', async (t) => {
    const { fake, client } = await setup(t, [
      { username: 'queen fan', files: albumFiles('@@q\\Music\\Queen', 'Greatest Hits', 'flac') },
      { username: 'low fan', files: albumFiles('@@l\\Low Collection', 'The Greatest Hits', 'mp3') },
    ]);
    const { ref } = await client.request(GREATEST);
    const last = (await pollUntilDone(client, ref, GREATEST)).at(-1);
    assert.equal(last?.state, 'completed');
    const enqueued = posted(fake, '/transfers/downloads/batches');
    assert.equal(enqueued.length, 1);
    assert.match(JSON.stringify(enqueued[0]), /"username":"low fan"/);
  });
});
