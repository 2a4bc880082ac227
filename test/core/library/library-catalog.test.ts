// The library catalogue on disk: albums in library-albums.jsonl, only match keys and offsets in memory.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, readdir, rename, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { LibraryAlbum } from '@crateflow/sdk';
import { emptyLibraryData, LibraryCatalog, type LibraryData } from '../../../core/library/library-catalog.js';
import { DamagedDataError } from '../../../core/storage/damaged-data-error.js';
import { Database } from '../../../core/storage/database.js';
import { fillDisk, mountTmpfs } from '../../helpers/tmpfs-mount.js';

const ALBUMS_FILE = 'library-albums.jsonl';

async function openCatalog(dir: string): Promise<{ catalog: LibraryCatalog; database: Database }> {
  const database = await Database.open(dir);
  const doc = await database.document<LibraryData>('library', emptyLibraryData);
  return { catalog: await LibraryCatalog.open(doc, join(dir, ALBUMS_FILE)), database };
}

async function closeAll({ catalog, database }: { catalog: LibraryCatalog; database: Database }): Promise<void> {
  await catalog.close();
  await database.close();
}

const owned = (n: number, extra: Partial<LibraryAlbum> = {}): LibraryAlbum => ({ artist: `Artist ${n}`, album: `Album ${n}`, ...extra });

describe('LibraryCatalog', () => {
  it('keeps albums on disk in shelf order, matches by mbid, name and credited artist, and reads the same after a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-catalog-'));
    const first = await openCatalog(dir);
    await first.catalog.replace(
      [
        owned(2, { mbid: 'B5A1AB1E-0000-4000-8000-000000000002' }),
        { artist: 'JAY-Z • Kanye West', album: 'Watch the Throne', artists: ['JAY-Z', 'Kanye West'] },
        owned(10),
        owned(1),
      ],
      '2026-11-23T00:00:00.000Z',
    );
    await closeAll(first);

    const again = await openCatalog(dir);
    const { catalog } = again;
    assert.equal(catalog.count, 4);
    assert.equal(catalog.syncedAt, '2026-11-23T00:00:00.000Z');
    assert.deepEqual((await catalog.page(0, 10)).items.map((a) => a.album), ['Album 1', 'Album 2', 'Album 10', 'Watch the Throne']);
    assert.deepEqual((await catalog.page(1, 2)).items.map((a) => a.album), ['Album 2', 'Album 10']);
    assert.equal(await catalog.find({ artist: 'someone else', album: 'x', mbid: 'b5a1ab1e-0000-4000-8000-000000000002' }), 'B5A1AB1E-0000-4000-8000-000000000002');
    assert.equal(await catalog.find({ artist: 'Kanye West', album: 'Watch The Throne (Deluxe Edition)' }), 'JAY-Z • Kanye West — Watch the Throne');
    assert.equal(catalog.owns({ artist: 'artist 10', album: 'album 10' }), true);
    assert.equal(catalog.owns({ artist: 'Artist 3', album: 'Album 3' }), false);
    const found = await catalog.search((a) => a.album.endsWith('0'), 0, 10);
    assert.deepEqual([found.total, found.items.map((a) => a.album)], [1, ['Album 10']]);
    await closeAll(again);
  });

  it('starts from the index saved at the last sync, and reads the albums again when the file is another one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-catalog-index-'));
    const first = await openCatalog(dir);
    await first.catalog.replace([owned(1, { mbid: '5ca1ab1e-0000-4000-8000-000000000001' }), owned(2), owned(3)], '2026-11-23T00:00:00.000Z');
    await closeAll(first);
    assert.ok((await readdir(dir)).includes(`${ALBUMS_FILE}.idx`));

    // The index says where each line starts and holds the keys: a start-up does not read the lines at all, so
    // keys edited in place (same length, same file) go unnoticed, where a full read would match "Artist 9".
    const path = join(dir, ALBUMS_FILE);
    // A whole-second modification time, so the edit below can put it back exactly; the start after setting it
    // sees a file other than the one indexed, reads it and saves the index again.
    const stamp = new Date('2026-11-23T12:00:00Z');
    await utimes(path, stamp, stamp);
    await closeAll(await openCatalog(dir));
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('artist 3\x1dalbum 3', 'artist 9\x1dalbum 9'));
    await utimes(path, stamp, stamp);
    const fromIndex = await openCatalog(dir);
    assert.equal(fromIndex.catalog.owns({ artist: 'Artist 3', album: 'Album 3' }), true);
    assert.equal(await fromIndex.catalog.find({ artist: 'x', album: 'y', mbid: '5CA1AB1E-0000-4000-8000-000000000001' }), '5ca1ab1e-0000-4000-8000-000000000001');
    assert.deepEqual((await fromIndex.catalog.page(1, 2)).items.map((a) => a.album), ['Album 2', 'Album 3']);
    await closeAll(fromIndex);

    // Another file in its place (a restore from a backup, a copy from elsewhere): a new inode, read in full.
    await writeFile(`${path}.copy`, await readFile(path));
    await rename(`${path}.copy`, path);
    const reread = await openCatalog(dir);
    assert.equal(reread.catalog.owns({ artist: 'Artist 3', album: 'Album 3' }), false);
    assert.equal(reread.catalog.owns({ artist: 'Artist 9', album: 'Album 9' }), true);
    await closeAll(reread);
  });

  it('moves the albums of an earlier version out of library.json, once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-catalog-legacy-'));
    // library.json as versions before the catalogue file wrote it: every album inside, one JSON object.
    await writeFile(join(dir, 'library.json'), JSON.stringify({ albums: [owned(1), owned(2)], synced_at: '2026-01-01T00:00:00.000Z' }));
    const first = await openCatalog(dir);
    assert.equal(first.catalog.count, 2);
    assert.equal(first.catalog.owns(owned(2)), true);
    await closeAll(first);
    assert.doesNotMatch(await readFile(join(dir, 'library.json'), 'utf8'), /Album 1/);
    assert.match(await readFile(join(dir, ALBUMS_FILE), 'utf8'), /Album 1/);

    const again = await openCatalog(dir);
    assert.deepEqual((await again.catalog.page(0, 10)).items, [owned(1), owned(2)]);
    assert.equal(again.catalog.syncedAt, '2026-01-01T00:00:00.000Z');
    await closeAll(again);
  });

  it('finishes a page being read while a sync replaces the catalogue, from the catalogue it started on', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-catalog-swap-'));
    const opened = await openCatalog(dir);
    await opened.catalog.replace(Array.from({ length: 200 }, (_, i) => owned(i)), '2026-01-01T00:00:00.000Z');
    const reading = opened.catalog.page(0, 200);
    await opened.catalog.replace([owned(9999)], '2026-01-02T00:00:00.000Z');
    const page = await reading;
    assert.equal(page.items.length, 200);
    assert.ok(page.items.every((a) => a.artist.startsWith('Artist ') && a.artist !== 'Artist 9999'));
    assert.deepEqual((await opened.catalog.page(0, 10)).items, [owned(9999)]);
    await closeAll(opened);
  });

  it('names the file when its last line was cut short, and keeps no temp file of an interrupted replacement', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-catalog-torn-'));
    const opened = await openCatalog(dir);
    await opened.catalog.replace([owned(1)], '2026-01-01T00:00:00.000Z');
    await closeAll(opened);
    await writeFile(join(dir, `${ALBUMS_FILE}.tmp`), 'half a catalogue');
    await appendFile(join(dir, ALBUMS_FILE), 'x\ty\t{"artist":');
    await assert.rejects(openCatalog(dir), (err: unknown) => err instanceof DamagedDataError && err.message.includes(ALBUMS_FILE));
    assert.deepEqual((await readdir(dir)).filter((f) => f.endsWith('.tmp')), []);
  });

  it('keeps the last catalogue when a sync cannot write the new one (a full disk), and leaves no trace of it', async (t) => {
    const { disk } = await mountTmpfs(t, 'size=256k');
    const opened = await openCatalog(disk);
    await opened.catalog.replace([owned(1), owned(2)], '2026-01-01T00:00:00.000Z');
    await fillDisk(disk, 8192);

    const big = Array.from({ length: 2000 }, (_, i) => owned(i, { album: `Album ${i} ${'x'.repeat(100)}` }));
    await assert.rejects(opened.catalog.replace(big, '2026-01-02T00:00:00.000Z'), (err: NodeJS.ErrnoException) => err.code === 'ENOSPC');
    assert.equal(opened.catalog.count, 2);
    assert.deepEqual((await opened.catalog.page(0, 10)).items, [owned(1), owned(2)]);
    assert.deepEqual((await readdir(disk)).filter((f) => f.endsWith('.tmp')), []);
    await closeAll(opened);
    const again = await openCatalog(disk);
    assert.deepEqual([again.catalog.count, again.catalog.syncedAt], [2, '2026-01-01T00:00:00.000Z']);
    await closeAll(again);
  });

  it('holds match keys in memory, not the albums', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-catalog-memory-'));
    // 2,000 albums of 16 KB each (fields a backend sends beyond those matched): 32 MB that must stay on disk.
    const opened = await openCatalog(dir);
    await opened.catalog.replace(Array.from({ length: 2000 }, (_, i) => Object.assign(owned(i), { notes: `${'p'.repeat(16 * 1024)}${i}` })), '2026-01-01T00:00:00.000Z');
    await closeAll(opened);

    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    const again = await openCatalog(dir);
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    assert.equal(again.catalog.owns(owned(1999)), true);
    assert.ok(grown < 8 * 1024 * 1024, `a catalogue of 2,000 albums took ${(grown / 1048576).toFixed(1)} MiB of heap`);
    await closeAll(again);
  });
});
