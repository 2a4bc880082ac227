// The wishlist in the database: items waiting for their first download, then handed off, in the order lists show.
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LibraryTable } from '../../../core/library/library-table.js';
import { Store } from '../../../core/storage/store.js';
import type { WishlistItem, WishlistStatus } from '../../../core/wishlist/wishlist-item.schema.js';
import { WishlistTable } from '../../../core/wishlist/wishlist-table.js';

async function dataDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-wishlist-table-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Opens the store of `dir` and its wishlist table; the store is closed after the test unless closed before. */
async function open(t: TestContext, dir: string): Promise<{ store: Store; wishlist: WishlistTable; close(): Promise<void> }> {
  const store = await Store.open(dir, { exclusive: true });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await store.close();
  };
  t.after(close);
  return { store, wishlist: new WishlistTable(store), close };
}

const wanted = (n: number, extra: Partial<WishlistItem> = {}): WishlistItem => ({
  id: `w${String(n).padStart(6, '0')}`, artist: `Artist ${n}`, album: `Album ${n}`, type: 'album', status: 'wanted', added_at: '2026-03-01T10:00:00.000Z', ...extra,
});
const ids = (items: readonly WishlistItem[]) => items.map((item) => item.id);
const allCounts = (wishlist: WishlistTable) => ({
  wanted: wishlist.count('wanted'), downloading: wishlist.count('downloading'), downloaded: wishlist.count('downloaded'), failed: wishlist.count('failed'), all: wishlist.count(),
});

describe('WishlistTable', () => {
  it('lists handed-off items latest hand-off first, then waiting items latest first, with status filters and offsets across the two', async (t) => {
    const { store, wishlist } = await open(t, await dataDir(t));
    await store.change(() => [1, 2, 3, 4, 5].forEach((n) => wishlist.insertWaiting(wanted(n))));
    // Handed off in the order 3, 1, 4: the order of hand-off, not of adding, places them.
    await store.change(() => {
      wishlist.enter(wanted(3, { status: 'downloading' }));
      wishlist.enter(wanted(1, { status: 'downloading' }));
      wishlist.enter(wanted(4, { status: 'downloading' }));
    });
    await store.change(() => {
      wishlist.update(wanted(3, { status: 'downloaded', download_path: '/music/3' }));
      wishlist.update(wanted(1, { status: 'wanted', not_before: '2026-03-01T11:00:00.000Z' }));
    });

    assert.deepEqual(ids(wishlist.page(0, 10).items), ['w000004', 'w000001', 'w000003', 'w000005', 'w000002']);
    assert.equal(wishlist.page(0, 10).total, 5);
    assert.deepEqual(ids(wishlist.page(2, 2).items), ['w000003', 'w000005'], 'a page across the hand-off boundary');
    assert.deepEqual(ids(wishlist.page(4, 2).items), ['w000002']);
    assert.deepEqual(wishlist.page(5, 2), { items: [], total: 5 });
    assert.deepEqual(wishlist.page(0, 10, 'wanted'), { items: [wanted(1, { not_before: '2026-03-01T11:00:00.000Z' }), wanted(5), wanted(2)], total: 3 });
    assert.deepEqual(ids(wishlist.page(1, 1, 'wanted').items), ['w000005'], 'waiting items follow the wanted handed-off ones');
    assert.deepEqual(wishlist.page(0, 10, 'downloading'), { items: [wanted(4, { status: 'downloading' })], total: 1 });
    assert.deepEqual(wishlist.page(0, 10, 'downloaded').items, [wanted(3, { status: 'downloaded', download_path: '/music/3' })]);
    assert.deepEqual(wishlist.page(0, 10, 'failed'), { items: [], total: 0 }, 'waiting items are only ever wanted');
    assert.deepEqual(wishlist.get('w000003'), wanted(3, { status: 'downloaded', download_path: '/music/3' }));
    assert.equal(wishlist.get('nope'), undefined);
    assert.deepEqual([wishlist.isWaiting('w000002'), wishlist.isWaiting('w000001'), wishlist.isWaiting('nope')], [true, false, false]);
  });

  it('keeps the counts by status right after every kind of write, waiting items counted as wanted', async (t) => {
    const { store, wishlist } = await open(t, await dataDir(t));
    assert.deepEqual(allCounts(wishlist), { wanted: 0, downloading: 0, downloaded: 0, failed: 0, all: 0 });
    await store.change(() => [1, 2, 3].forEach((n) => wishlist.insertWaiting(wanted(n))));
    assert.deepEqual(allCounts(wishlist), { wanted: 3, downloading: 0, downloaded: 0, failed: 0, all: 3 });
    await store.change(() => wishlist.enter(wanted(1, { status: 'downloading' })));
    assert.deepEqual(allCounts(wishlist), { wanted: 2, downloading: 1, downloaded: 0, failed: 0, all: 3 });
    await store.change(() => wishlist.enter(wanted(2, { status: 'wanted' })));
    assert.deepEqual(allCounts(wishlist), { wanted: 2, downloading: 1, downloaded: 0, failed: 0, all: 3 }, 'entered while still wanted');
    await store.change(() => wishlist.update(wanted(1, { status: 'failed' })));
    assert.deepEqual(allCounts(wishlist), { wanted: 2, downloading: 0, downloaded: 0, failed: 1, all: 3 });
    await store.change(() => wishlist.update(wanted(2, { status: 'downloaded' })));
    assert.deepEqual(allCounts(wishlist), { wanted: 1, downloading: 0, downloaded: 1, failed: 1, all: 3 });
    assert.deepEqual(await store.change(() => wishlist.remove('w000003')), wanted(3), 'a waiting item removed');
    assert.deepEqual(allCounts(wishlist), { wanted: 0, downloading: 0, downloaded: 1, failed: 1, all: 2 });
    assert.deepEqual(await store.change(() => wishlist.remove('w000001')), wanted(1, { status: 'failed' }), 'a handed-off item removed');
    assert.equal(await store.change(() => wishlist.remove('w000001')), undefined, 'removed twice');
    assert.deepEqual(allCounts(wishlist), { wanted: 0, downloading: 0, downloaded: 1, failed: 0, all: 1 });
    assert.equal(wishlist.page(0, 10).total, 1);
  });

  it('gives a download the wanted items whose retry time has passed, oldest hand-off first, then waiting items oldest first', async (t) => {
    const { store, wishlist } = await open(t, await dataDir(t));
    const now = Date.parse('2026-03-01T12:00:00.000Z');
    await store.change(() => {
      for (const n of [1, 2, 3, 4, 5, 6, 7]) wishlist.insertWaiting(wanted(n));
      // Handed off in the order 5, 2, 6, 4, then each back to wanted (or not) after an attempt.
      for (const n of [5, 2, 6, 4]) wishlist.enter(wanted(n, { status: 'downloading' }));
      wishlist.update(wanted(5, { not_before: '2026-03-01T12:00:00.000Z' })); // due: exactly now
      wishlist.update(wanted(2, { not_before: '2026-03-01T12:00:00.001Z' })); // not yet
      wishlist.update(wanted(6)); // wanted again, no wait
      wishlist.update(wanted(4, { status: 'failed' }));
    });
    assert.deepEqual(ids(wishlist.dueForDownload(now, 10)), ['w000005', 'w000006', 'w000001', 'w000003', 'w000007']);
    assert.deepEqual(ids(wishlist.dueForDownload(now, 3)), ['w000005', 'w000006', 'w000001']);
    assert.deepEqual(ids(wishlist.dueForDownload(now, 1)), ['w000005']);
    assert.deepEqual(wishlist.dueForDownload(now, 0), []);
    assert.deepEqual(ids(wishlist.dueForDownload(now + 1, 3)), ['w000005', 'w000002', 'w000006'], 'the retry time reached');
    // A not_before that is no date never comes due, as before.
    await store.change(() => wishlist.update(wanted(6, { not_before: 'soon' })));
    assert.deepEqual(ids(wishlist.dueForDownload(now, 2)), ['w000005', 'w000001']);
  });

  it('finds the item wanting an album by mbid in any case, else by name, handed-off items before waiting ones', async (t) => {
    const { store, wishlist } = await open(t, await dataDir(t));
    await store.change(() => {
      wishlist.insertWaiting(wanted(1, { mbid: 'AB12CD34-0000-4000-8000-000000000001' }));
      wishlist.insertWaiting(wanted(2, { artist: 'Low', album: 'Things We Lost in the Fire' }));
      wishlist.insertWaiting(wanted(3, { artist: 'Low', album: 'Things We Lost In The Fire', title: 'x' }));
      wishlist.insertWaiting(wanted(4, { album: undefined, title: 'A Track', type: 'track' }));
    });
    assert.equal(wishlist.findWanted({ artist: 'someone', album: 'else', mbid: 'ab12cd34-0000-4000-8000-000000000001' }), 'w000001');
    assert.equal(wishlist.findWanted({ artist: 'x', album: 'y', release_group_mbid: 'AB12CD34-0000-4000-8000-000000000001' }), 'w000001', 'an album named by a release group id');
    assert.equal(wishlist.findWanted({ artist: 'Artist 1', album: 'Album 1' }), 'w000001', 'by name when the mbid is not given');
    assert.equal(wishlist.findWanted({ artist: 'low', album: 'things we lost in the fire' }), 'w000003', 'the latest of two waiting');
    await store.change(() => wishlist.enter(wanted(2, { artist: 'Low', album: 'Things We Lost in the Fire', status: 'downloading' })));
    assert.equal(wishlist.findWanted({ artist: 'low', album: 'things we lost in the fire' }), 'w000002', 'the handed-off one first');
    assert.equal(wishlist.findWanted({ artist: 'Artist 4', title: 'A track' }), 'w000004', 'a track by its title');
    assert.equal(wishlist.findWanted({ artist: 'Artist 5', album: 'Album 5', mbid: 'ab12cd34-0000-4000-8000-000000000005' }), undefined);
    assert.equal(wishlist.findWanted({ artist: 'Artist 5' }), undefined, 'no album, no title: no key');
    await store.change(() => wishlist.remove('w000001'));
    assert.equal(wishlist.findWanted({ artist: 'someone', album: 'else', mbid: 'ab12cd34-0000-4000-8000-000000000001' }), undefined, 'removed');
  });

  it('lists the items the library owns, by mbid or name, handed-off ones first', async (t) => {
    const { store, wishlist } = await open(t, await dataDir(t));
    await new LibraryTable(store).replace(
      [{ artist: 'Artist 2', album: 'Album 2' }, { artist: 'Someone', album: 'Other', mbid: 'AB12CD34-0000-4000-8000-000000000003' }],
      '2026-03-01T00:00:00.000Z',
    );
    await store.change(() => {
      wishlist.insertWaiting(wanted(1));
      wishlist.insertWaiting(wanted(2));
      wishlist.insertWaiting(wanted(3, { mbid: 'ab12cd34-0000-4000-8000-000000000003' }));
      wishlist.enter(wanted(3, { mbid: 'ab12cd34-0000-4000-8000-000000000003', status: 'downloaded' }));
    });
    assert.deepEqual(ids(wishlist.owned()), ['w000003', 'w000002']);
  });

  it('refuses writes that break its rules and never stores the state of a download', async (t) => {
    const { store, wishlist } = await open(t, await dataDir(t));
    await assert.rejects(store.change(() => wishlist.insertWaiting(wanted(1, { status: 'downloading' }))), /only a wanted item can wait/);
    await store.change(() => wishlist.insertWaiting(wanted(1)));
    await store.change(() => wishlist.enter(wanted(1, { status: 'downloading', download_state: 'queued' })));
    assert.deepEqual(wishlist.get('w000001'), wanted(1, { status: 'downloading' }));
    await assert.rejects(store.change(() => wishlist.enter(wanted(1, { status: 'downloading' }))), /not waiting for its first download/);
    await assert.rejects(store.change(() => wishlist.update(wanted(2))), /not on the wishlist/);
    await assert.rejects(store.change(() => wishlist.insertWaiting(wanted(1))), /UNIQUE/);
    assert.deepEqual(allCounts(wishlist), { wanted: 0, downloading: 1, downloaded: 0, failed: 0, all: 1 });
  });

  it('leaves nothing of a change that throws part-way', async (t) => {
    const { store, wishlist } = await open(t, await dataDir(t));
    await store.change(() => wishlist.insertWaiting(wanted(1)));
    await assert.rejects(
      store.change(() => {
        wishlist.insertWaiting(wanted(2));
        wishlist.enter(wanted(1, { status: 'downloading' }));
        wishlist.remove('w000001');
        throw new Error('the change fails after its writes');
      }),
      /the change fails/,
    );
    assert.deepEqual(wishlist.page(0, 10), { items: [wanted(1)], total: 1 });
    assert.equal(wishlist.isWaiting('w000001'), true);
    assert.deepEqual(allCounts(wishlist), { wanted: 1, downloading: 0, downloaded: 0, failed: 0, all: 1 });
    assert.equal(wishlist.findWanted({ artist: 'Artist 2', album: 'Album 2' }), undefined);
  });

  it('keeps every item, its place and the hand-off numbering across a restart', async (t) => {
    const dir = await dataDir(t);
    const first = await open(t, dir);
    await first.store.change(() => {
      for (const n of [1, 2, 3, 4]) first.wishlist.insertWaiting(wanted(n));
      first.wishlist.enter(wanted(2, { status: 'downloading' }));
      first.wishlist.enter(wanted(1, { status: 'downloading' }));
    });
    // The latest hand-off gone: the next one must still come after every one left.
    await first.store.change(() => first.wishlist.remove('w000001'));
    await first.close();

    const { store, wishlist } = await open(t, dir);
    assert.deepEqual(ids(wishlist.page(0, 10).items), ['w000002', 'w000004', 'w000003']);
    assert.deepEqual(allCounts(wishlist), { wanted: 2, downloading: 1, downloaded: 0, failed: 0, all: 3 });
    await store.change(() => wishlist.enter(wanted(3, { status: 'downloading' })));
    await store.change(() => wishlist.insertWaiting(wanted(5)));
    assert.deepEqual(ids(wishlist.page(0, 10).items), ['w000003', 'w000002', 'w000005', 'w000004']);
    assert.deepEqual(ids(wishlist.dueForDownload(Date.now(), 5)), ['w000004', 'w000005']);
  });

  it('pages 100,000 items by index: first and deep pages of every kind (times printed, not bounded)', async (t) => {
    const { store, wishlist } = await open(t, await dataDir(t));
    const statuses: WishlistStatus[] = ['wanted', 'downloading', 'downloaded', 'failed'];
    let started = performance.now();
    await store.change(() => {
      for (let n = 0; n < 100_000; n++) wishlist.insertWaiting(wanted(n, { mbid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}` }));
      // Half handed off, in order, with every status.
      for (let n = 0; n < 50_000; n++) wishlist.enter(wanted(n, { status: statuses[n % 4] as WishlistStatus, mbid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}` }));
    });
    const fillMs = performance.now() - started;
    assert.deepEqual(allCounts(wishlist), { wanted: 62_500, downloading: 12_500, downloaded: 12_500, failed: 12_500, all: 100_000 });

    const timed = (read: () => { items: WishlistItem[] }) => {
      const at = performance.now();
      const page = read();
      return { ids: ids(page.items), ms: performance.now() - at };
    };
    const first = timed(() => wishlist.page(0, 50));
    const deepEntered = timed(() => wishlist.page(49_990, 20));
    const deepWaiting = timed(() => wishlist.page(99_950, 50));
    const deepWanted = timed(() => wishlist.page(62_450, 50, 'wanted'));
    const deepFailed = timed(() => wishlist.page(12_450, 50, 'failed'));
    assert.deepEqual([first.ids.length, first.ids[0]], [50, 'w049999']);
    assert.deepEqual(deepEntered.ids.slice(8, 12), ['w000001', 'w000000', 'w099999', 'w099998']);
    assert.deepEqual([deepWaiting.ids.length, deepWaiting.ids.at(-1)], [50, 'w050000']);
    assert.deepEqual([deepWanted.ids.length, deepWanted.ids.at(-1)], [50, 'w050000']);
    assert.deepEqual([deepFailed.ids.length, deepFailed.ids.at(-1)], [50, 'w000003']);
    started = performance.now();
    let found = 0;
    for (let n = 0; n < 100_000; n += 10) if (wishlist.findWanted({ artist: 'x', album: 'y', mbid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}` }) !== undefined) found++;
    const findUs = ((performance.now() - started) * 1000) / 10_000;
    assert.equal(found, 10_000);
    started = performance.now();
    const due = wishlist.dueForDownload(Date.now(), 20);
    const dueMs = performance.now() - started;
    assert.deepEqual(ids(due).slice(0, 2), ['w000000', 'w000004']);
    t.diagnostic(
      `100,000 wishlist items: filled in ${fillMs.toFixed(0)} ms; first page ${first.ms.toFixed(2)} ms, offset 49,990 ${deepEntered.ms.toFixed(2)} ms, ` +
        `offset 99,950 ${deepWaiting.ms.toFixed(2)} ms, wanted at 62,450 ${deepWanted.ms.toFixed(2)} ms, failed at 12,450 ${deepFailed.ms.toFixed(2)} ms, ` +
        `findWanted ${findUs.toFixed(1)} µs each, dueForDownload(20) ${dueMs.toFixed(2)} ms`,
    );
  });
});
