import assert from 'node:assert/strict';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { FakeSlskdFile } from '../../fakes/fake-slskd.js';
import { pollUntilDone, WANTED } from './slskd-fixtures.js';
import { batchFolder, posted, setup } from './slskd-setup.js';

/** A disc folder whose tracks are named like every other disc's ("01 - Track 1.flac"). */
function disc(name: string, count: number): FakeSlskdFile[] {
  return Array.from({ length: count }, (_, i) => ({ filename: `@@m\\Music\\Low\\Double Negative (2018)\\${name}\\0${i + 1} - Track ${i + 1}.flac`, size: 25_000 + i }));
}

describe('download-slskd: multi-disc albums', () => {
  it('downloads every disc of an album into one folder, each disc in its own subfolder, with slskd 0.26 batch destinations', async (t) => {
    const { fake, client, downloadsDir } = await setup(t, [{ username: 'collector', files: [...disc('CD1', 4), ...disc('CD2', 3)] }]);
    const { ref } = await client.request(WANTED);
    const last = (await pollUntilDone(client, ref)).at(-1);
    const folder = batchFolder(downloadsDir, ref);
    assert.deepEqual(last, { state: 'completed', progress: 1, download_path: folder });
    assert.deepEqual((await readdir(folder)).sort(), ['CD1', 'CD2']);
    assert.equal((await readdir(join(folder, 'CD1'))).length, 4);
    assert.deepEqual((await readdir(join(folder, 'CD2'))).sort(), ['01 - Track 1.flac', '02 - Track 2.flac', '03 - Track 3.flac'], 'same names as CD1, no _<ticks> renames');
    assert.equal((await stat(join(folder, 'CD2', '03 - Track 3.flac'))).size, 25_002);
    const destinations = posted(fake, '/transfers/downloads/batches').map((b) => JSON.stringify(b)).map((b) => /"destination":"([^"]+)"/.exec(b)?.[1]);
    assert.deepEqual(destinations, [`Low - Double Negative [${ref}]/CD1`, `Low - Double Negative [${ref}]/CD2`]);
  });

  it('still skips disc folders with slskd before 0.26, where the discs would land in separate <downloads>/CD1 and CD2', async (t) => {
    const { fake, client } = await setup(t, [{ username: 'collector', files: [...disc('CD1', 4), ...disc('CD2', 3)] }], {
      fake: { version: '0.25.1' },
      config: { retry_after_no_results_ms: 60_000 },
    });
    const { ref } = await client.request(WANTED);
    const last = (await pollUntilDone(client, ref)).at(-1);
    assert.equal(last?.state, 'failed');
    assert.equal(last?.retry_after_ms, 60_000);
    assert.equal(fake.received.filter((r) => r.method === 'POST' && r.path.includes('/transfers/downloads')).length, 0);
  });
});
