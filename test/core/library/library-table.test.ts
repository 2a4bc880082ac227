// The library catalogue in the database: albums in shelf order, their match keys, the last sync's time and count.
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { normalizeName, type LibraryAlbum } from '@crateflow/sdk';
import { LibraryTable } from '../../../core/library/library-table.js';
import { ServiceUnavailableError } from '../../../core/errors/service-unavailable-error.js';
import { Store } from '../../../core/storage/store.js';
import { fillDisk, mountTmpfs } from '../../helpers/tmpfs-mount.js';

async function dataDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-library-table-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Opens the store of `dir` and its library table; the store is closed after the test unless closed before. */
async function open(t: TestContext, dir: string): Promise<{ store: Store; library: LibraryTable; close(): Promise<void> }> {
  const store = await Store.open(dir, { exclusive: true });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await store.close();
  };
  t.after(close);
  return { store, library: new LibraryTable(store), close };
}

const owned = (n: number, extra: Partial<LibraryAlbum> = {}): LibraryAlbum => ({ artist: `Artist ${n}`, album: `Album ${n}`, ...extra });

describe('LibraryTable', () => {
  it('keeps albums in shelf order, matches by mbid, release group, name and credited artist, and reads the same after a restart', async (t) => {
    const dir = await dataDir(t);
    const first = await open(t, dir);
    assert.deepEqual([first.library.count, first.library.syncedAt], [0, null], 'before the first sync');
    await first.library.replace(
      [
        owned(2, { mbid: 'B5A1AB1E-0000-4000-8000-000000000002', release_group_mbid: 'B5A1AB1E-0000-4000-8000-0000000000A2' }),
        { artist: 'JAY-Z • Kanye West', album: 'Watch the Throne', artists: ['JAY-Z', 'Kanye West'] },
        owned(10),
        owned(1),
        { artist: 'artist 1', album: 'Ärger' },
      ],
      '2026-11-23T00:00:00.000Z',
    );
    await first.close();

    const { library } = await open(t, dir);
    assert.equal(library.count, 5);
    assert.equal(library.syncedAt, '2026-11-23T00:00:00.000Z');
    // Case and accents ignored, numbers in numeric order ("Album 2" before "Album 10"), artist before album.
    assert.deepEqual(library.page(0, 10).items.map((a) => a.album), ['Album 1', 'Ärger', 'Album 2', 'Album 10', 'Watch the Throne']);
    const { items, total } = library.page(2, 2);
    assert.deepEqual({ albums: items.map((a) => a.album), total }, { albums: ['Album 2', 'Album 10'], total: 5 });
    assert.deepEqual(items[0], owned(2, { mbid: 'B5A1AB1E-0000-4000-8000-000000000002', release_group_mbid: 'B5A1AB1E-0000-4000-8000-0000000000A2' }), 'the record as synced');
    assert.deepEqual(library.page(5, 10).items, []);
    assert.equal(library.find({ artist: 'someone else', album: 'x', mbid: 'b5a1ab1e-0000-4000-8000-000000000002' }), 'B5A1AB1E-0000-4000-8000-000000000002');
    assert.equal(library.find({ artist: 'someone else', album: 'x', release_group_mbid: 'b5a1ab1e-0000-4000-8000-0000000000a2' }), 'B5A1AB1E-0000-4000-8000-000000000002');
    // An item's mbid finds an album by its release group too: both sides' mbids are one set of keys, as before.
    assert.equal(library.owns({ artist: 'x', album: 'y', mbid: 'B5A1AB1E-0000-4000-8000-0000000000A2' }), true);
    assert.equal(library.find({ artist: 'Kanye West', album: 'Watch The Throne (Deluxe Edition)' }), 'JAY-Z • Kanye West — Watch the Throne');
    assert.equal(library.find({ artist: 'JAY-Z', album: 'Watch the Throne' }), 'JAY-Z • Kanye West — Watch the Throne');
    assert.equal(library.owns({ artist: 'artist 10', album: 'album 10' }), true);
    assert.equal(library.owns({ artist: 'Artist 3', album: 'Album 3' }), false);
    assert.equal(library.owns({ artist: 'Artist 1', title: 'Album 1' }), true, 'a track without an album is matched by its title');
    assert.equal(library.find({ artist: 'Artist 3', album: 'Album 3', mbid: 'not-owned' }), undefined);
  });

  it('gives a key several albums share to the last of them in shelf order, and falls back to the name when the mbid is unknown', async (t) => {
    const { library } = await open(t, await dataDir(t));
    await library.replace(
      [
        { artist: 'B', album: 'Two', release_group_mbid: 'RG-1', mbid: 'r-2' },
        { artist: 'A', album: 'One', release_group_mbid: 'rg-1', mbid: 'r-1' },
        { artist: 'Twice', album: 'Same' },
        { artist: 'twice', album: 'same', mbid: 'r-3' },
      ],
      '2026-01-01T00:00:00.000Z',
    );
    assert.equal(library.find({ artist: 'x', album: 'y', release_group_mbid: 'rg-1' }), 'r-2', 'B files after A');
    assert.equal(library.find({ artist: 'A', album: 'One', mbid: 'r-1' }), 'r-1', 'the release mbid is tried first');
    assert.equal(library.find({ artist: 'A', album: 'One', mbid: 'unknown' }), 'r-1', 'then the name');
    assert.equal(library.find({ artist: 'TWICE', album: 'SAME' }), 'r-3');
  });

  it('searches artist and album by word prefixes, in shelf order, with a total', async (t) => {
    const { library } = await open(t, await dataDir(t));
    await library.replace(
      [
        { artist: 'Slowdive', album: 'Souvlaki' },
        { artist: 'Low', album: 'Double Negative' },
        { artist: 'Low', album: 'Things We Lost in the Fire' },
        { artist: 'Sigur Rós', album: 'Ágætis byrjun' },
        { artist: '100% Wolf', album: 'a_b' },
        { artist: '!!!', album: '%' },
      ],
      '2026-01-01T00:00:00.000Z',
    );
    const albums = (q: string, offset = 0, limit = 10) => {
      const { items, total } = library.search(q, offset, limit);
      return { total, albums: items.map((a) => a.album) };
    };
    assert.deepEqual(albums('low'), { total: 2, albums: ['Double Negative', 'Things We Lost in the Fire'] }, '"low" is not Slowdive');
    assert.deepEqual(albums('LOW fir'), { total: 1, albums: ['Things We Lost in the Fire'] });
    assert.deepEqual(albums('low', 1, 1), { total: 2, albums: ['Things We Lost in the Fire'] });
    assert.deepEqual(albums('sigur agaetis'), { total: 1, albums: ['Ágætis byrjun'] }, 'accents and folded letters ignored');
    assert.deepEqual(albums('ros byr'), { total: 1, albums: ['Ágætis byrjun'] });
    assert.deepEqual(albums('owdive'), { total: 0, albums: [] }, 'inside a word is no match');
    // Characters LIKE would read as wildcards are plain text here: "%" finds only a name that is that character.
    assert.deepEqual(albums('%'), { total: 1, albums: ['%'] });
    assert.deepEqual(albums('_'), { total: 0, albums: [] });
    assert.deepEqual(albums('  '), { total: 6, albums: ['%', 'a_b', 'Double Negative', 'Things We Lost in the Fire', 'Ágætis byrjun', 'Souvlaki'] }, 'no words: the whole shelf');
    // The same answers as the scan LibraryService.list made over the albums file.
    const shelf = library.page(0, 100).items;
    for (const q of ['low', 'the', 's', 'a b', '100', 'wolf a', 'negative double', 'ágætis', 'LOW THINGS WE', '!!!']) {
      const terms = normalizeName(q).split(' ').filter(Boolean);
      const scanned = shelf.filter((a) => {
        const text = ` ${normalizeName(`${a.artist} ${a.album}`)} `;
        return terms.every((term) => text.includes(` ${term}`));
      });
      assert.deepEqual(library.search(q, 0, 100), { items: scanned, total: scanned.length }, q);
    }
  });

  it('lists artists with their album counts, most first, names differing in case or accents counted as one', async (t) => {
    const { library } = await open(t, await dataDir(t));
    assert.deepEqual(library.artists(), []);
    await library.replace(
      [
        { artist: 'Sigur Ros', album: 'Takk' },
        { artist: 'Björk', album: 'Post' },
        { artist: 'Artist 10', album: 'x' },
        { artist: 'Sigur Rós', album: 'Ágætis byrjun' },
        { artist: 'bjork', album: 'Debut' },
        { artist: 'Artist 9', album: 'x' },
        { artist: 'Abba', album: 'Arrival' },
      ],
      '2026-01-01T00:00:00.000Z',
    );
    // Shown as first filed: "bjork"/"Debut" files before "Björk"/"Post", "Sigur Rós"/"Ágætis" before "Sigur Ros"/"Takk".
    assert.deepEqual(library.artists(), [
      { name: 'bjork', albums: 2 },
      { name: 'Sigur Rós', albums: 2 },
      { name: 'Abba', albums: 1 },
      { name: 'Artist 9', albums: 1 },
      { name: 'Artist 10', albums: 1 },
    ]);
  });

  it('serves a page read while a sync waits for its commit from the last catalogue whole, and from the new one once saved', async (t) => {
    const { library } = await open(t, await dataDir(t));
    await library.replace(Array.from({ length: 200 }, (_, i) => owned(i)), '2026-01-01T00:00:00.000Z');
    const replacing = library.replace([owned(9999)], '2026-01-02T00:00:00.000Z');
    const during = library.page(0, 200);
    assert.equal(during.items.length, 200);
    assert.equal(during.total, 200);
    assert.ok(during.items.every((a) => a.artist !== 'Artist 9999'));
    await replacing;
    assert.deepEqual(library.page(0, 10), { items: [owned(9999)], total: 1 });
    assert.equal(library.owns(owned(5)), false, 'the keys went with their albums');
    assert.deepEqual([library.count, library.syncedAt], [1, '2026-01-02T00:00:00.000Z']);
  });

  it('keeps the last catalogue when a sync cannot be saved (a full database), and after a restart', async (t) => {
    const dir = await dataDir(t);
    const first = await open(t, dir);
    await first.library.replace([owned(1), owned(2)], '2026-01-01T00:00:00.000Z');
    // SQLite refuses to grow the file past max_page_count with SQLITE_FULL, as it does on a full disk.
    const pages = Number(first.store.db.pragma('page_count', { simple: true }));
    first.store.db.pragma(`max_page_count = ${pages + 2}`);
    const big = Array.from({ length: 2000 }, (_, i) => owned(i, { album: `Album ${i} ${'x'.repeat(100)}` }));
    await assert.rejects(first.library.replace(big, '2026-01-02T00:00:00.000Z'), ServiceUnavailableError);
    assert.deepEqual([first.library.count, first.library.syncedAt], [2, '2026-01-01T00:00:00.000Z']);
    assert.deepEqual(first.library.page(0, 10).items, [owned(1), owned(2)]);
    assert.equal(first.library.owns(owned(1999)), false);
    assert.equal(first.library.owns(owned(2)), true);
    first.store.db.pragma('max_page_count = 1073741823');
    await first.close();

    const again = await open(t, dir);
    assert.deepEqual([again.library.count, again.library.syncedAt], [2, '2026-01-01T00:00:00.000Z']);
    assert.deepEqual(again.library.page(0, 10).items, [owned(1), owned(2)]);
  });

  it('keeps the last catalogue when the disk itself is full, and after a restart once there is room', async (t) => {
    const { disk } = await mountTmpfs(t, 'size=1m');
    const first = await open(t, disk);
    await first.library.replace([owned(1), owned(2)], '2026-01-01T00:00:00.000Z');
    const filler = await fillDisk(disk);
    const big = Array.from({ length: 2000 }, (_, i) => owned(i, { album: `Album ${i} ${'x'.repeat(200)}` }));
    await assert.rejects(first.library.replace(big, '2026-01-02T00:00:00.000Z'), ServiceUnavailableError);
    assert.deepEqual([first.library.count, first.library.syncedAt], [2, '2026-01-01T00:00:00.000Z']);
    assert.deepEqual(first.library.page(0, 10).items, [owned(1), owned(2)]);
    assert.equal(first.library.owns(owned(1999)), false);
    await rm(filler);
    await first.close();

    const again = await open(t, disk);
    assert.deepEqual([again.library.count, again.library.syncedAt], [2, '2026-01-01T00:00:00.000Z']);
    assert.deepEqual(again.library.page(0, 10).items, [owned(1), owned(2)]);
    await again.close();
  });

  it('replaces a catalogue of 100,000 albums in one sync and answers owns() by index (times printed, not bounded)', async (t) => {
    const { library } = await open(t, await dataDir(t));
    const albums = Array.from({ length: 100_000 }, (_, i) =>
      owned(99_999 - i, { mbid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, artists: [`Guest ${i % 1000}`] }),
    );
    let started = performance.now();
    await library.replace(albums, '2026-01-01T00:00:00.000Z');
    const replaceMs = performance.now() - started;
    started = performance.now();
    await library.replace(albums, '2026-01-02T00:00:00.000Z');
    const againMs = performance.now() - started;
    assert.equal(library.count, 100_000);

    started = performance.now();
    let found = 0;
    for (let i = 0; i < 10_000; i++) {
      if (library.owns({ artist: `Artist ${i * 7}`, album: `Album ${i * 7}` })) found++;
      if (library.owns({ artist: 'nobody', album: 'nothing', mbid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` })) found++;
    }
    const ownsUs = ((performance.now() - started) * 1000) / 20_000;
    assert.equal(found, 20_000);
    assert.equal(library.owns({ artist: `Guest 7`, album: 'Album 99992' }), true, 'a credited artist of album 7 of the input');
    started = performance.now();
    const deep = library.page(99_990, 50);
    const pageMs = performance.now() - started;
    assert.deepEqual([deep.items.length, deep.items[0]?.album, deep.total], [10, 'Album 99990', 100_000]);
    started = performance.now();
    const artists = library.artists();
    const artistsMs = performance.now() - started;
    assert.equal(artists.length, 100_000);
    t.diagnostic(
      `100,000 albums: replace ${replaceMs.toFixed(0)} ms (again over a full one ${againMs.toFixed(0)} ms), owns() ${ownsUs.toFixed(1)} µs each, ` +
        `page at offset 99,990 ${pageMs.toFixed(2)} ms, artists() ${artistsMs.toFixed(0)} ms`,
    );
  });

  it('holds no album in memory: a catalogue of 32 MB of records stays in the database', async (t) => {
    const dir = await dataDir(t);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { library } = await open(t, dir);
    gc();
    const before = process.memoryUsage().heapUsed;
    // 2,000 albums of 16 KB each (fields a backend sends beyond those matched), dropped once handed over.
    await library.replace(Array.from({ length: 2000 }, (_, i) => Object.assign(owned(i), { notes: `${'p'.repeat(16 * 1024)}${i}` })), '2026-01-01T00:00:00.000Z');
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    assert.equal(library.owns(owned(1999)), true);
    assert.equal(library.page(1999, 1).items.length, 1);
    t.diagnostic(`heap grown by ${(grown / 1048576).toFixed(2)} MiB after replacing 2,000 albums of 16 KB`);
    assert.ok(grown < 4 * 1024 * 1024, `a catalogue of 2,000 albums kept ${(grown / 1048576).toFixed(1)} MiB of heap`);
  });
});
