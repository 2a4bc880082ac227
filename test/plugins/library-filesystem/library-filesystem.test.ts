import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LibraryAlbum, LibraryBackend } from '@crateflow/sdk';
import type { RecordingLogger } from '@crateflow/sdk/testing';
import filesystem from '@crateflow/library-filesystem';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';

interface Setup {
  library: LibraryBackend;
  music: string;
  log: RecordingLogger;
}

async function setup(t: TestContext, config: Record<string, unknown> = {}): Promise<Setup> {
  const root = await mkdtemp(join(tmpdir(), 'library-fs-'));
  const music = join(root, 'music');
  const harness = createPluginTestContext(filesystem, { path: music, ...config });
  t.after(async () => {
    await harness.close();
    await rm(root, { recursive: true, force: true });
  });
  return { library: await filesystem.create(harness.context), music, log: harness.context.log };
}

async function file(path: string, content = 'audio'): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, content);
}

async function listAll(library: LibraryBackend, signal = new AbortController().signal): Promise<{ albums: LibraryAlbum[]; pages: number }> {
  const albums: LibraryAlbum[] = [];
  let pages = 0;
  for await (const page of library.albums(signal)) {
    pages++;
    albums.push(...page);
  }
  return { albums, pages };
}

const names = (albums: readonly LibraryAlbum[]) => albums.map((a) => `${a.artist}/${a.album}`).sort();

describe('library-filesystem plugin', () => {
  it('lists <Artist>/<Album> folders that hold an audio file, directly or in a disc sub-folder such as CD1', async (t) => {
    const { library, music } = await setup(t);
    await file(join(music, 'Low', 'Double Negative', '01 Quorum.flac'));
    await file(join(music, 'Low', 'Ones and Sixes', 'CD1', '01 Gentle.MP3'));
    await file(join(music, 'Sigur Rós', 'Ágætis byrjun', '01.ogg'));
    await file(join(music, 'Low', 'Artwork Only', 'cover.jpg'));
    await mkdir(join(music, 'Low', 'Empty'), { recursive: true });
    await file(join(music, 'Low', 'Too Deep', 'a', 'b', '01.flac'));
    await file(join(music, 'Low', 'notes.txt'), 'an artist-level file');
    await file(join(music, 'loose.flac'));
    const { albums } = await listAll(library);
    assert.deepEqual(names(albums), ['Low/Double Negative', 'Low/Ones and Sixes', 'Sigur Rós/Ágætis byrjun']);
    assert.deepEqual(albums.find((a) => a.album === 'Double Negative'), { artist: 'Low', album: 'Double Negative' });
  });

  it('ignores hidden artist, album and disc folders, and hidden files such as macOS ._ metadata', async (t) => {
    const { library, music } = await setup(t);
    await file(join(music, '.stversions', 'Old', '01.flac'));
    await file(join(music, 'Low', '.Trash', '01.flac'));
    await file(join(music, 'Low', 'Hidden Disc', '.cache', '01.flac'));
    await file(join(music, 'Low', 'Copied From A Mac', '._01.flac'));
    await file(join(music, 'Low', 'Real', '01.flac'));
    assert.deepEqual(names((await listAll(library)).albums), ['Low/Real']);
  });

  it('follows symbolic links to artist, album and track, and skips dangling ones', async (t) => {
    const { library, music } = await setup(t);
    const elsewhere = join(music, '..', 'elsewhere');
    await file(join(elsewhere, 'Slowdive', 'Souvlaki', '01 Alison.flac'));
    await file(join(elsewhere, 'Ride', 'Nowhere', '01 Seagull.flac'));
    await file(join(elsewhere, 'tracks', '01 Fly.flac'));
    await mkdir(join(music, 'Ride'), { recursive: true });
    await mkdir(join(music, 'Low', 'Linked Tracks'), { recursive: true });
    await symlink(join(elsewhere, 'Slowdive'), join(music, 'Slowdive'));
    await symlink(join(elsewhere, 'Ride', 'Nowhere'), join(music, 'Ride', 'Nowhere'));
    await symlink(join(elsewhere, 'tracks', '01 Fly.flac'), join(music, 'Low', 'Linked Tracks', '01 Fly.flac'));
    await symlink(join(elsewhere, 'gone'), join(music, 'Gone'));
    await symlink(join(elsewhere, 'gone.flac'), join(music, 'Low', 'Linked Tracks', '02 Gone.flac'));
    assert.deepEqual(names((await listAll(library)).albums), ['Low/Linked Tracks', 'Ride/Nowhere', 'Slowdive/Souvlaki']);
  });

  it('counts only the configured audio_extensions', async (t) => {
    const { library, music } = await setup(t, { audio_extensions: ['dsf'] });
    await file(join(music, 'Low', 'Flac Album', '01.flac'));
    await file(join(music, 'Low', 'Dsd Album', '01.dsf'));
    assert.deepEqual(names((await listAll(library)).albums), ['Low/Dsd Album']);
  });

  it('answers an empty library with a warning naming the path when the folder does not exist, and reports unhealthy', async (t) => {
    const { library, music, log } = await setup(t);
    const { albums, pages } = await listAll(library);
    assert.deepEqual([albums, pages], [[], 0]);
    const [warning] = log.at('warn');
    assert.ok(warning, 'a warning is logged');
    assert.deepEqual(warning.fields, { plugin: 'library-filesystem', path: music });
    const health = await library.health?.();
    assert.equal(health?.ok, false);
    assert.match(health?.message ?? '', /music/);
  });

  it('fails with the path and the reason when the folder cannot be read', async (t) => {
    const { library, music } = await setup(t);
    await file(music, 'a file where the folder should be');
    await assert.rejects(listAll(library), (err: unknown) => err instanceof Error && err.message.includes(music) && err.message.includes('ENOTDIR'));
  });

  it('stops reading when the signal is aborted', async (t) => {
    const { library, music } = await setup(t);
    await file(join(music, 'Low', 'Double Negative', '01.flac'));
    const abort = new AbortController();
    abort.abort();
    assert.deepEqual(await listAll(library, abort.signal), { albums: [], pages: 0 });
  });

  it('lists 3,000 artist × album folders in pages', async (t) => {
    const { library, music } = await setup(t);
    const artists = 300;
    const perArtist = 10;
    for (let a = 0; a < artists; a++) {
      await Promise.all(Array.from({ length: perArtist }, (_, b) => file(join(music, `Artist ${a}`, `Album ${b}`, '01 Track.flac'))));
    }
    const started = performance.now();
    const { albums, pages } = await listAll(library);
    const elapsed = performance.now() - started;
    t.diagnostic(`listed ${albums.length} albums in ${pages} pages in ${elapsed.toFixed(0)} ms`);
    assert.equal(albums.length, artists * perArtist);
    assert.equal(new Set(names(albums)).size, artists * perArtist);
    assert.ok(pages > 1, 'a large library arrives in more than one page');
  });
  it('fails with the reason when the folder it found albums in is gone (an unmounted NAS), and lists again once it is back', async (t) => {
    const { library, music } = await setup(t);
    await file(join(music, 'Low', 'Double Negative', '01 Quorum.flac'));
    assert.equal((await listAll(library)).albums.length, 1);
    await rename(music, `${music}.away`);
    await assert.rejects(listAll(library), /the library folder .*music is gone, though the last sync found albums in it \(is the drive or NAS mounted\?\)/);
    assert.match((await library.health?.())?.message ?? '', /ENOENT/);
    await rename(`${music}.away`, music);
    assert.equal((await listAll(library)).albums.length, 1);
  });

  it('reports unhealthy when the folder it found albums in is there but empty, as a mount point without its share', async (t) => {
    const { library, music } = await setup(t);
    await file(join(music, 'Low', 'Double Negative', '01 Quorum.flac'));
    await listAll(library);
    assert.equal((await library.health?.())?.ok, true);
    await rm(join(music, 'Low'), { recursive: true });
    const health = await library.health?.();
    assert.equal(health?.ok, false);
    assert.match(health?.message ?? '', /is empty, though albums were found in it before/);
  });
});
