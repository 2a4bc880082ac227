import assert from 'node:assert/strict';
import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { describe, it } from 'node:test';
import type { DownloadUpdate, WantedItem } from '@crateflow/sdk';
import type { FakeSlskdFile } from '../../fakes/fake-slskd.js';
import { pollUntil, pollUntilDone, WANTED } from './slskd-fixtures.js';
import { batchFolder, posted, setup } from './slskd-setup.js';

const DUMMY: WantedItem = { id: 'w_dummy', artist: 'Portishead', album: 'Dummy', type: 'album' };
const MEZZANINE: WantedItem = { id: 'w_mezz', artist: 'Massive Attack', album: 'Mezzanine', type: 'album' };

/** Five tracks in `directory`, joined with the peer's own separator. */
function tracks(directory: string, separator: '\\' | '/', size = 30_000): FakeSlskdFile[] {
  return [1, 2, 3, 4, 5].map((n) => ({ filename: `${directory}${separator}0${n} - Track ${n}.flac`, size: size + n }));
}

async function bothDone(client: Parameters<typeof pollUntilDone>[0], a: string, b: string): Promise<[DownloadUpdate | undefined, DownloadUpdate | undefined]> {
  let first: DownloadUpdate | undefined;
  let second: DownloadUpdate | undefined;
  for (let i = 0; i < 60 && (first?.progress !== 1 || second?.progress !== 1); i++) {
    first = await client.status(a, DUMMY);
    second = await client.status(b, MEZZANINE);
    if (first.state === 'failed' || second.state === 'failed') break;
  }
  return [first, second];
}

describe('download-slskd: where the files really are', () => {
  it('puts two albums whose remote folders are both called FLAC (one peer using /) into their own batch destinations', async (t) => {
    const { fake, client, downloadsDir } = await setup(t, [
      { username: 'win', files: tracks('@@w\\Music\\Portishead\\Dummy (1994)\\FLAC', '\\') },
      { username: 'unix', files: tracks('music/Massive Attack/Mezzanine (1998)/FLAC', '/') },
    ]);
    const a = await client.request(DUMMY);
    const b = await client.request(MEZZANINE);
    const [dummy, mezzanine] = await bothDone(client, a.ref, b.ref);
    assert.deepEqual(dummy, { state: 'completed', progress: 1, download_path: batchFolder(downloadsDir, a.ref, 'Portishead - Dummy') });
    assert.deepEqual(mezzanine, { state: 'completed', progress: 1, download_path: batchFolder(downloadsDir, b.ref, 'Massive Attack - Mezzanine') });
    assert.ok(isAbsolute(dummy?.state === 'completed' ? (dummy.download_path ?? '') : ''));
    assert.deepEqual((await readdir(batchFolder(downloadsDir, b.ref, 'Massive Attack - Mezzanine'))).sort(), ['01 - Track 1.flac', '02 - Track 2.flac', '03 - Track 3.flac', '04 - Track 4.flac', '05 - Track 5.flac']);
    assert.deepEqual((await readdir(downloadsDir)).includes('FLAC'), false);
    assert.equal(posted(fake, '/transfers/downloads/batches').length, 2);
  });

  it('with slskd 0.25 (no batches) never reports two albums in one <downloads>/FLAC: the second takes a peer whose folder is free', async (t) => {
    const { fake, client, downloadsDir, harness } = await setup(
      t,
      [
        { username: 'win', files: tracks('@@w\\Music\\Portishead\\Dummy (1994)\\FLAC', '\\') },
        { username: 'unix', files: tracks('music/Massive Attack/Mezzanine (1998)/FLAC', '/', 40_000) },
        { username: 'other', uploadSpeed: 1000, files: tracks('@@o\\Massive Attack - Mezzanine (1998)', '\\') },
      ],
      { fake: { version: '0.25.1' } },
    );
    const a = await client.request(DUMMY);
    await pollUntil(client, a.ref, 'downloading', DUMMY);
    const b = await client.request(MEZZANINE);
    const [dummy, mezzanine] = await bothDone(client, a.ref, b.ref);
    assert.deepEqual(dummy, { state: 'completed', progress: 1, download_path: join(downloadsDir, 'FLAC') });
    assert.deepEqual(mezzanine, { state: 'completed', progress: 1, download_path: join(downloadsDir, 'Massive Attack - Mezzanine (1998)') });
    assert.equal(posted(fake, '/transfers/downloads/batches').length, 0, '0.25 has no batch endpoint; the plugin does not use it');
    assert.equal((await readdir(join(downloadsDir, 'FLAC'))).length, 5, 'the FLAC folder holds one album');
    const skipped = harness.context.log.at('warn').map((l) => JSON.stringify(l)).find((l) => l.includes('"username":"unix"'));
    assert.match(skipped ?? '', /local folder .*FLAC (is in use by another download|already exists and holds something else)/, 'the better FLAC-named Mezzanine folder was skipped for its name');
  });

  it('calls an album complete only once every file is in the folder with its size, although slskd said Completed, Succeeded earlier', async (t) => {
    const { fake, client, downloadsDir } = await setup(t, [{ username: 'win', files: tracks('@@w\\Music\\Low\\Double Negative (2018)', '\\') }], {
      fake: { moveSteps: 3 },
    });
    const { ref } = await client.request(WANTED);
    let sawSucceededWhileMoving = false;
    let update = await client.status(ref, WANTED);
    for (let i = 0; i < 40 && update.state !== 'completed'; i++) {
      const records = fake.state.transfers.records;
      if (records.length > 0 && records.every((r) => r.state === 'Completed, Succeeded') && records.some((r) => r.moveStepsLeft > 0)) {
        sawSucceededWhileMoving = true;
        assert.equal(update.state, 'downloading', 'every transfer Succeeded but files still moving is not complete');
        assert.ok(update.progress < 1);
      }
      update = await client.status(ref, WANTED);
    }
    assert.ok(sawSucceededWhileMoving, 'the fake held the Succeeded-before-moved window open');
    assert.deepEqual(update, { state: 'completed', progress: 1, download_path: batchFolder(downloadsDir, ref) });
    for (const name of await readdir(batchFolder(downloadsDir, ref))) {
      const size = (await stat(join(batchFolder(downloadsDir, ref), name))).size;
      assert.ok(size >= 30_001, `${name} is whole (${size} bytes)`);
    }
  });

  it('gives a candidate up after stall_timeout when slskd says Succeeded but the files never reach downloads_dir', async (t) => {
    const { client, harness } = await setup(t, [{ username: 'win', files: tracks('@@w\\Music\\Low\\Double Negative (2018)', '\\') }], {
      fake: { moveSteps: 1_000_000 },
      config: { stall_timeout: '15m' },
    });
    const { ref } = await client.request(WANTED);
    await pollUntil(client, ref, 'downloading');
    for (let i = 0; i < 8; i++) await client.status(ref, WANTED);
    harness.context.clock.advance(16 * 60_000);
    const last = (await pollUntilDone(client, ref)).at(-1);
    assert.equal(last?.state, 'failed');
    assert.match(last?.error ?? '', /slskd reports every file done but 5 of 5 are not in .* with their size after 15m \(is downloads_dir/);
  });
});
