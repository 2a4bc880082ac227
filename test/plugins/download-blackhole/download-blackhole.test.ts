import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { watch } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { DownloadClient, WantedItem } from '@crateflow/sdk';
import { ManualClock, type MemoryStorage } from '@crateflow/sdk/testing';
import blackhole from '@crateflow/download-blackhole';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';
import { mountTmpfs } from '../../helpers/tmpfs-mount.js';

const QUIET_MS = 15_000;

interface Setup {
  client: DownloadClient;
  clock: ManualClock;
  storage: MemoryStorage;
  root: string;
  requestsDir: string;
  completeDir: string;
  /** Creates the plugin again on the same storage and clock, as after a server restart. */
  recreate(): Promise<DownloadClient>;
}

async function setup(t: TestContext, options: { relativeDirs?: boolean } = {}): Promise<Setup> {
  const root = await mkdtemp(join(tmpdir(), 'blackhole-'));
  const requestsDir = join(root, 'box', 'requests');
  const completeDir = join(root, 'box', 'complete');
  // relativeDirs: the folders as config.yaml often names them, relative to the working directory.
  const configured = (dir: string) => (options.relativeDirs ? relative(process.cwd(), dir) : dir);
  const config = { requests_dir: configured(requestsDir), complete_dir: configured(completeDir), quiet_period_ms: QUIET_MS };
  // File times come from the real clock; start the manual one at real time so "quiet for" is meaningful.
  const harness = createPluginTestContext(blackhole, config, { clock: new ManualClock(Date.now()) });
  const more: { close(): Promise<void> }[] = [];
  t.after(async () => {
    await Promise.all([harness.close(), ...more.map((h) => h.close())]);
    await rm(root, { recursive: true, force: true });
  });
  const client = await blackhole.create(harness.context);
  await client.start?.();
  return {
    client,
    clock: harness.context.clock,
    storage: harness.context.storage,
    root,
    requestsDir,
    completeDir,
    async recreate() {
      const again = createPluginTestContext(blackhole, config, { clock: harness.context.clock, storage: harness.context.storage });
      more.push(again);
      return blackhole.create(again.context);
    },
  };
}

const item = (overrides: Partial<WantedItem> = {}): WantedItem => ({ id: 'w1', artist: 'Low', album: 'Double Negative', type: 'album', ...overrides });

/** Writes a file into an album folder and stamps it (and the folder) with the manual clock's time. */
async function writeTrack(clock: ManualClock, folder: string, name: string, content = 'audio'): Promise<void> {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, name), content);
  const at = new Date(clock.now());
  await utimes(join(folder, name), at, at);
  await utimes(folder, at, at);
}

describe('download-blackhole plugin', () => {
  it('creates requests_dir and complete_dir on start', async (t) => {
    const { requestsDir, completeDir } = await setup(t);
    assert.ok((await stat(requestsDir)).isDirectory());
    assert.ok((await stat(completeDir)).isDirectory());
  });

  it('writes one JSON request file per item with id, artist, album, mbid, type and year, and answers the item id as ref', async (t) => {
    const { client, clock, requestsDir, completeDir } = await setup(t);
    const mbid = '0e9b3b0a-6b3e-4a8f-9d3c-1c2b3a4d5e6f';
    const { ref } = await client.request(item({ mbid, year: 2018 }));
    await client.request(item({ id: 'w2', artist: 'Slowdive', album: undefined, title: 'Alison', type: 'track' }));
    assert.equal(ref, 'w1');
    const files = (await readdir(requestsDir)).sort();
    assert.deepEqual(files, ['Low - Double Negative [w1].json', 'Slowdive - Alison [w2].json']);
    const body: unknown = JSON.parse(await readFile(join(requestsDir, 'Low - Double Negative [w1].json'), 'utf8'));
    assert.deepEqual(body, {
      id: 'w1', artist: 'Low', album: 'Double Negative', mbid, type: 'album', year: 2018,
      expected_dir: join(completeDir, 'Low', 'Double Negative'), requested_at: new Date(clock.now()).toISOString(),
    });
  });

  it('keeps request files inside requests_dir whatever the artist and album say', async (t) => {
    const { client, requestsDir, root } = await setup(t);
    const hostile: Partial<WantedItem>[] = [
      { artist: '../../etc', album: '../../../passwd' },
      { artist: '..', album: '..' },
      { artist: '/abs/path', album: 'C:\\Windows\\system32' },
      { artist: 'nul\u0000byte\nnewline', album: 'a:b*c?d"e<f>g|h' },
      { artist: '.hidden', album: `${'x'.repeat(300)}/../..` },
    ];
    for (const [i, overrides] of hostile.entries()) await client.request(item({ id: `w${i}`, ...overrides }));
    const files = await readdir(requestsDir);
    assert.equal(files.length, hostile.length);
    for (const file of files) {
      assert.equal(dirname(resolve(requestsDir, file)), requestsDir, file);
      assert.ok(!file.startsWith('.'), `${file} is not hidden`);
      assert.ok(Buffer.byteLength(file) < 255, `${file} fits a file name`);
      assert.doesNotMatch(file, /[/\\\u0000\n]/);
    }
    assert.deepEqual((await readdir(join(root, 'box'))).sort(), ['.requests.crateflow-tmp', 'complete', 'requests'], 'nothing but the temp folder was written next to requests_dir');
    assert.deepEqual(await readdir(join(root, 'box', '.requests.crateflow-tmp')), [], 'every temp file was renamed into requests_dir');
    assert.deepEqual(await readdir(root), ['box']);
  });

  it('writes each request file outside requests_dir and renames it in, so a tool watching requests_dir sees only whole .json files', async (t) => {
    const { client, requestsDir } = await setup(t);
    const seen: string[] = [];
    let last: () => void = () => undefined;
    const lastArrived = new Promise<void>((resolve) => (last = resolve));
    const watcher = watch(requestsDir, (_event, name) => {
      if (name === null) return;
      seen.push(name);
      if (name === 'Low - Ones and Sixes [w3].json') last();
    });
    t.after(() => watcher.close());
    for (const [i, album] of ['Double Negative', 'HEY WHAT', 'Ones and Sixes'].entries()) await client.request(item({ id: `w${i + 1}`, album }));
    // inotify reports events in order: once the last file's event is here, every earlier one is too.
    await lastArrived;
    assert.ok(seen.length > 0);
    assert.deepEqual(seen.filter((name) => !name.endsWith('.json')), [], `names seen in requests_dir: ${seen.join(', ')}`);
    assert.deepEqual((await readdir(requestsDir)).sort(), ['Low - Double Negative [w1].json', 'Low - HEY WHAT [w2].json', 'Low - Ones and Sixes [w3].json']);
  });

  it('removes temp files a stop left between write and rename, at the next start', async (t) => {
    const { root, recreate } = await setup(t);
    const tempDir = join(root, 'box', '.requests.crateflow-tmp');
    await writeFile(join(tempDir, 'Low - Double Negative [w1].json.tmp'), '{"id":"w1","art');
    const restarted = await recreate();
    await restarted.start?.();
    assert.deepEqual(await readdir(tempDir), []);
  });

  it('writes temp files in a hidden subfolder of requests_dir when requests_dir is a mount of its own, so the rename stays atomic', async (t) => {
    // A container volume mounted as requests_dir: the folder beside it is on another filesystem, where a rename
    // into requests_dir would fail (EXDEV) or, done as a copy, show a half-written file.
    const { root, disk: requestsDir } = await mountTmpfs(t, 'size=1m', 'requests');
    const harness = createPluginTestContext(blackhole, { requests_dir: requestsDir, complete_dir: join(root, 'complete') });
    t.after(() => harness.close());
    const client = await blackhole.create(harness.context);
    await client.start?.();
    await client.request(item());
    assert.deepEqual((await readdir(requestsDir)).sort(), ['.crateflow-tmp', 'Low - Double Negative [w1].json']);
    assert.deepEqual(await readdir(join(requestsDir, '.crateflow-tmp')), []);
    assert.deepEqual((await readdir(root)).sort(), ['complete', 'requests'], 'no temp folder left beside requests_dir');
  });

  it('gives absolute paths for relative folders: expected_dir in the request file and download_path when complete', async (t) => {
    const { client, clock, requestsDir, completeDir } = await setup(t, { relativeDirs: true });
    const wanted = item({ id: 'w9', artist: 'AC/DC', album: 'Back in Black' });
    const { ref } = await client.request(wanted);
    const body: unknown = JSON.parse(await readFile(join(requestsDir, 'AC_DC - Back in Black [w9].json'), 'utf8'));
    const expectedDir: unknown = typeof body === 'object' && body !== null ? Reflect.get(body, 'expected_dir') : undefined;
    assert.equal(expectedDir, join(completeDir, 'AC_DC', 'Back in Black'));
    assert.ok(typeof expectedDir === 'string' && isAbsolute(expectedDir));
    // A tool that does as the request file says puts the album exactly there, and the download completes.
    await writeTrack(clock, expectedDir, '01 Hells Bells.flac');
    await clock.advance(QUIET_MS);
    assert.equal((await client.status(ref, wanted)).state, 'downloading', 'first sight of the folder starts the quiet period');
    await clock.advance(QUIET_MS);
    const done = await client.status(ref, wanted);
    assert.deepEqual(done, { state: 'completed', progress: 1, download_path: expectedDir });
  });

  it('reports queued until a matching <Artist>/<Album> folder appears in complete_dir', async (t) => {
    const { client, clock, completeDir } = await setup(t);
    const wanted = item();
    const { ref } = await client.request(wanted);
    assert.deepEqual(await client.status(ref, wanted), { state: 'queued', progress: 0 });
    await writeTrack(clock, join(completeDir, 'Low', 'The Great Destroyer'), '01.flac');
    await writeTrack(clock, join(completeDir, 'Lowly', 'Double Negative'), '01.flac');
    await clock.advance(QUIET_MS);
    assert.deepEqual(await client.status(ref, wanted), { state: 'queued', progress: 0 });
  });

  it('matches folder names normalised: case, accents, a leading "The", punctuation, edition suffixes', async (t) => {
    const { client, clock, completeDir } = await setup(t);
    const wanted = item({ artist: 'The Sigur Rós', album: 'Ágætis byrjun' });
    const { ref } = await client.request(wanted);
    const folder = join(completeDir, 'SIGUR ROS', 'Agaetis Byrjun [Remastered 2011]');
    await writeTrack(clock, folder, '01 Svefn-g-englar.flac');
    assert.equal((await client.status(ref, wanted)).state, 'downloading', 'found, and now watched for the quiet period');
    await clock.advance(QUIET_MS);
    assert.deepEqual(await client.status(ref, wanted), { state: 'completed', progress: 1, download_path: folder });

    const live = item({ id: 'w2', artist: 'Sigur Rós', album: 'Ágætis byrjun (Live)' });
    const second = await client.request(live);
    assert.equal((await client.status(second.ref, live)).state, 'queued', '"(Live)" is another album');
  });

  it('matches the artist folder of a collaboration that names its artists in another order or joined another way', async (t) => {
    const { client, clock, completeDir } = await setup(t);
    const wanted = item({ artist: 'JAY\u2010Z & Kanye West', album: 'Watch the Throne' });
    const { ref } = await client.request(wanted);
    const folder = join(completeDir, 'Kanye West, JAY-Z', 'Watch The Throne (Deluxe)');
    await writeTrack(clock, folder, '01 No Church in the Wild.flac');
    assert.equal((await client.status(ref, wanted)).state, 'downloading', 'found, and now watched for the quiet period');
    await clock.advance(QUIET_MS);
    assert.deepEqual(await client.status(ref, wanted), { state: 'completed', progress: 1, download_path: folder });
  });

  it('treats a folder still being written as downloading until nothing in it changed for quiet_period_ms', async (t) => {
    const { client, clock, completeDir } = await setup(t);
    const wanted = item();
    const { ref } = await client.request(wanted);
    const folder = join(completeDir, 'Low', 'Double Negative');
    await mkdir(folder, { recursive: true });
    await clock.advance(QUIET_MS * 2);
    assert.deepEqual(await client.status(ref, wanted), { state: 'downloading', progress: 0.5 }, 'an empty folder is not a download');

    await writeTrack(clock, folder, '01 Quorum.flac');
    assert.equal((await client.status(ref, wanted)).state, 'downloading');
    await clock.advance(QUIET_MS - 5000);
    await writeTrack(clock, folder, '02 Dancing and Blood.flac', 'growing');
    await clock.advance(10_000);
    assert.equal((await client.status(ref, wanted)).state, 'downloading', 'only 10 s since the last change');
    await writeTrack(clock, join(folder, 'CD2'), '01 Fly.flac');
    await clock.advance(QUIET_MS - 1);
    assert.equal((await client.status(ref, wanted)).state, 'downloading', 'a change in a disc sub-folder counts too');
    await clock.advance(1);
    assert.equal((await client.status(ref, wanted)).state, 'downloading', 'the new file was only seen one poll ago');
    await clock.advance(QUIET_MS);
    assert.deepEqual(await client.status(ref, wanted), { state: 'completed', progress: 1, download_path: folder });
  });

  it('waits for the file count and size to settle when a copy keeps old modification times (rsync -a, cp -p)', async (t) => {
    const { client, clock, completeDir, requestsDir } = await setup(t);
    const wanted = item();
    const { ref } = await client.request(wanted);
    const folder = join(completeDir, 'Low', 'Double Negative');
    const old = new Date(clock.now() - 10 * QUIET_MS);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, '01 Quorum.flac'), 'audio');
    await utimes(join(folder, '01 Quorum.flac'), old, old);
    await utimes(folder, old, old);
    assert.equal((await client.status(ref, wanted)).state, 'downloading', 'old mtimes alone do not prove the copy is over');
    await clock.advance(QUIET_MS - 1);
    await writeFile(join(folder, '02 Dancing and Blood.flac'), 'more audio');
    await utimes(join(folder, '02 Dancing and Blood.flac'), old, old);
    await utimes(folder, old, old);
    assert.equal((await client.status(ref, wanted)).state, 'downloading', 'a second file arrived');
    await clock.advance(QUIET_MS);
    assert.deepEqual(await client.status(ref, wanted), { state: 'completed', progress: 1, download_path: folder });
    assert.deepEqual(await readdir(requestsDir), [], 'the fulfilled request file is removed');
  });

  it('removes the request file on cancel, also after a restart, and a second cancel is harmless', async (t) => {
    const { client, requestsDir, storage, recreate } = await setup(t);
    const first = await client.request(item());
    const second = await client.request(item({ id: 'w2', album: 'Ones and Sixes' }));
    await client.cancel?.(first.ref);
    assert.deepEqual(await readdir(requestsDir), ['Low - Ones and Sixes [w2].json']);
    await client.cancel?.(first.ref);

    const restarted = await recreate();
    await restarted.cancel?.(second.ref);
    assert.deepEqual(await readdir(requestsDir), []);
    assert.deepEqual(storage.snapshot(), {}, 'nothing is left in the plugin storage');
  });
});
