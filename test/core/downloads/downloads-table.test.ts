// Downloads in the database: live ones while their wishlist item is wanted, completed ones archived when it goes.
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Download } from '../../../core/downloads/download.schema.js';
import { DownloadsTable } from '../../../core/downloads/downloads-table.js';
import { Store } from '../../../core/storage/store.js';

async function dataDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-downloads-table-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Opens the store of `dir` and its downloads table; the store is closed after the test unless closed before. */
async function open(t: TestContext, dir: string): Promise<{ store: Store; downloads: DownloadsTable; close(): Promise<void> }> {
  const store = await Store.open(dir, { exclusive: true });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await store.close();
  };
  t.after(close);
  return { store, downloads: new DownloadsTable(store), close };
}

/** Download `n` of wishlist item `w<item>` (its own item unless told). */
const download = (n: number, extra: Partial<Download> = {}, item = n): Download => ({
  id: `d${String(n).padStart(6, '0')}`, wishlist_id: `w${String(item).padStart(6, '0')}`, artist: `Artist ${item}`, album: `Album ${item}`, client: 'blackhole',
  state: 'queued', progress: 0, attempts: 1, created_at: '2026-03-01T10:00:00.000Z', updated_at: '2026-03-01T10:00:00.000Z', ...extra,
});
const ids = (items: readonly Download[]) => items.map((d) => d.id);
const completed = (n: number, item = n) => download(n, { state: 'completed', progress: 1, download_path: `/music/${item}` }, item);

describe('DownloadsTable', () => {
  it('lists live downloads newest first, then archived ones most recently archived first, with state filters and offsets across the two', async (t) => {
    const { store, downloads } = await open(t, await dataDir(t));
    await store.change(() => [1, 2, 3, 4, 5, 6].forEach((n) => downloads.insert(download(n))));
    await store.change(() => {
      for (const n of [1, 2, 4, 5]) downloads.update(completed(n));
      downloads.update(download(3, { state: 'failed', error: 'nothing found' }));
    });
    // Items 4 and 1 leave the wishlist, in that order, then 5: their completed downloads are archived in that order.
    await store.change(() => downloads.retireFor(['w000004', 'w000001']));
    await store.change(() => downloads.retireFor(new Set(['w000005'])));
    // A restart of the failed download keeps its place among the live ones.
    await store.change(() => downloads.update(download(3, { attempts: 2 })));

    assert.deepEqual(ids(downloads.page({ offset: 0, limit: 10 }).items), ['d000006', 'd000003', 'd000002', 'd000005', 'd000004', 'd000001']);
    assert.equal(downloads.page({ offset: 0, limit: 10 }).total, 6);
    assert.deepEqual(ids(downloads.page({ offset: 2, limit: 2 }).items), ['d000002', 'd000005'], 'a page across the archive boundary');
    assert.deepEqual(ids(downloads.page({ offset: 4, limit: 5 }).items), ['d000004', 'd000001']);
    assert.deepEqual(downloads.page({ offset: 6, limit: 5 }), { items: [], total: 6 });
    assert.deepEqual(downloads.page({ state: 'completed', offset: 0, limit: 10 }), { items: [completed(2), completed(5), completed(4), completed(1)], total: 4 });
    assert.deepEqual(ids(downloads.page({ state: 'completed', offset: 1, limit: 2 }).items), ['d000005', 'd000004']);
    assert.deepEqual(downloads.page({ state: 'queued', offset: 0, limit: 10 }), { items: [download(6), download(3, { attempts: 2 })], total: 2 });
    assert.deepEqual(downloads.page({ state: 'failed', offset: 0, limit: 10 }), { items: [], total: 0 });
    assert.deepEqual(downloads.get('d000004'), completed(4), 'an archived download is found by id');
    assert.deepEqual([downloads.isArchived('d000004'), downloads.isArchived('d000002'), downloads.isArchived('nope')], [true, false, false]);
    assert.equal(downloads.get('nope'), undefined);
  });

  it('keeps the counts by state right after every kind of write, archived downloads included', async (t) => {
    const { store, downloads } = await open(t, await dataDir(t));
    const zero = { queued: 0, searching: 0, downloading: 0, completed: 0, failed: 0 };
    assert.deepEqual([downloads.counts(), downloads.liveCount()], [zero, 0]);
    await store.change(() => [1, 2, 3, 4].forEach((n) => downloads.insert(download(n))));
    assert.deepEqual([downloads.counts(), downloads.liveCount()], [{ ...zero, queued: 4 }, 4]);
    await store.change(() => {
      downloads.update(download(1, { state: 'searching' }));
      downloads.update(download(2, { state: 'downloading', progress: 0.5 }));
      downloads.update(completed(3));
      downloads.update(download(4, { state: 'failed' }));
    });
    assert.deepEqual([downloads.counts(), downloads.liveCount()], [{ queued: 0, searching: 1, downloading: 1, completed: 1, failed: 1 }, 4]);
    assert.deepEqual(await store.change(() => downloads.retireFor(['w000003', 'w000004'])), { archived: 1, deleted: 1 });
    assert.deepEqual([downloads.counts(), downloads.liveCount()], [{ queued: 0, searching: 1, downloading: 1, completed: 1, failed: 0 }, 2]);
    assert.deepEqual(await store.change(() => downloads.retireFor(['w000003'])), { archived: 0, deleted: 0 }, 'an archived download is not retired again');
    assert.deepEqual(await store.change(() => downloads.retireFor(['w000001', 'w000002'])), { archived: 0, deleted: 2 });
    assert.deepEqual([downloads.counts(), downloads.liveCount()], [{ ...zero, completed: 1 }, 0]);
    assert.equal(downloads.page({ offset: 0, limit: 10 }).total, 1);
  });

  it('answers the poller and the wishlist: active downloads oldest first, the latest of an item, the states of items being downloaded', async (t) => {
    const { store, downloads } = await open(t, await dataDir(t));
    await store.change(() => {
      downloads.insert(download(1, { state: 'downloading' }));
      downloads.insert(download(2, { state: 'failed' }));
      downloads.insert(download(3, { state: 'searching' }, 1)); // a second download of item 1
      downloads.insert(completed(4));
      downloads.insert(download(5));
      downloads.insert(download(6, { state: 'failed' }, 2));
      downloads.insert(completed(7, 8));
    });
    await store.change(() => downloads.retireFor(['w000008']));
    assert.deepEqual(ids(downloads.active()), ['d000001', 'd000003', 'd000005']);
    assert.deepEqual(downloads.latestFor('w000001'), download(3, { state: 'searching' }, 1));
    assert.deepEqual(downloads.latestFor('w000002', 'failed'), download(6, { state: 'failed' }, 2));
    assert.equal(downloads.latestFor('w000002', 'queued'), undefined);
    assert.equal(downloads.latestFor('w000008'), undefined, 'archived downloads are history, not the item\'s');
    assert.deepEqual(
      [...downloads.activeStateFor(['w000001', 'w000002', 'w000004', 'w000005', 'w000009'])],
      [['w000001', 'searching'], ['w000005', 'queued']],
      'the newest active download of an item; none for finished or unknown ones',
    );
    assert.deepEqual(downloads.activeStateFor([]).size, 0);
    assert.deepEqual(ids(downloads.ofWishlistItems(new Set(['w000002', 'w000001', 'w000008']))), ['d000001', 'd000002', 'd000003', 'd000006']);
  });

  it('refuses to change an archived or unknown download', async (t) => {
    const { store, downloads } = await open(t, await dataDir(t));
    await store.change(() => downloads.insert(completed(1)));
    await store.change(() => downloads.retireFor(['w000001']));
    await assert.rejects(store.change(() => downloads.update(download(1, { state: 'failed' }))), /archived or unknown/);
    await assert.rejects(store.change(() => downloads.update(download(2))), /archived or unknown/);
    await assert.rejects(store.change(() => downloads.insert(download(1))), /UNIQUE/);
    assert.deepEqual(downloads.get('d000001'), completed(1));
  });

  it('leaves nothing of a change that throws part-way', async (t) => {
    const { store, downloads } = await open(t, await dataDir(t));
    await store.change(() => [1, 2].forEach((n) => downloads.insert(completed(n))));
    await assert.rejects(
      store.change(() => {
        downloads.insert(download(3));
        downloads.update(download(1, { state: 'failed' }));
        downloads.retireFor(['w000001', 'w000002']);
        throw new Error('the change fails after its writes');
      }),
      /the change fails/,
    );
    assert.deepEqual(downloads.page({ offset: 0, limit: 10 }), { items: [completed(2), completed(1)], total: 2 });
    assert.deepEqual([downloads.isArchived('d000001'), downloads.liveCount(), downloads.counts().completed], [false, 2, 2]);
  });

  it('keeps live and archived downloads, their order and the archive numbering across a restart', async (t) => {
    const dir = await dataDir(t);
    const first = await open(t, dir);
    await first.store.change(() => [1, 2, 3, 4].forEach((n) => first.downloads.insert(completed(n))));
    await first.store.change(() => first.downloads.retireFor(['w000002', 'w000001']));
    await first.close();

    const { store, downloads } = await open(t, dir);
    assert.deepEqual(ids(downloads.page({ offset: 0, limit: 10 }).items), ['d000004', 'd000003', 'd000002', 'd000001']);
    await store.change(() => downloads.retireFor(['w000003']));
    await store.change(() => downloads.insert(download(5)));
    assert.deepEqual(ids(downloads.page({ offset: 0, limit: 10 }).items), ['d000005', 'd000004', 'd000003', 'd000002', 'd000001']);
    assert.deepEqual(downloads.counts(), { queued: 1, searching: 0, downloading: 0, completed: 4, failed: 0 });
  });

  it('pages 100,000 downloads by index, most of them archived: first and deep pages (times printed, not bounded)', async (t) => {
    const { store, downloads } = await open(t, await dataDir(t));
    const states = ['queued', 'searching', 'downloading', 'completed', 'failed'] as const;
    let started = performance.now();
    await store.change(() => {
      for (let n = 0; n < 100_000; n++) downloads.insert(n < 90_000 ? completed(n) : download(n, { state: states[n % 5] }));
    });
    const fillMs = performance.now() - started;
    started = performance.now();
    const retired = await store.change(() => downloads.retireFor(Array.from({ length: 90_000 }, (_, n) => `w${String(n).padStart(6, '0')}`)));
    const retireMs = performance.now() - started;
    assert.deepEqual(retired, { archived: 90_000, deleted: 0 });
    assert.deepEqual(downloads.counts(), { queued: 2000, searching: 2000, downloading: 2000, completed: 92_000, failed: 2000 });

    const timed = (read: () => { items: Download[] }) => {
      const at = performance.now();
      const page = read();
      return { ids: ids(page.items), ms: performance.now() - at };
    };
    const firstPage = timed(() => downloads.page({ offset: 0, limit: 50 }));
    const deep = timed(() => downloads.page({ offset: 99_950, limit: 50 }));
    const deepCompleted = timed(() => downloads.page({ state: 'completed', offset: 91_950, limit: 50 }));
    const liveFailed = timed(() => downloads.page({ state: 'failed', offset: 1990, limit: 20 }));
    assert.deepEqual([firstPage.ids.length, firstPage.ids[0]], [50, 'd099999']);
    assert.deepEqual([deep.ids.length, deep.ids.at(-1)], [50, 'd000000']);
    assert.deepEqual([deepCompleted.ids.length, deepCompleted.ids.at(-1)], [50, 'd000000']);
    assert.deepEqual([liveFailed.ids.length, liveFailed.ids[0], liveFailed.ids.at(-1)], [10, 'd090049', 'd090004'], 'the oldest failed live ones, none archived');
    started = performance.now();
    const active = downloads.active();
    const activeMs = performance.now() - started;
    assert.equal(active.length, 6000);
    t.diagnostic(
      `100,000 downloads (90,000 archived): filled in ${fillMs.toFixed(0)} ms, 90,000 retired in one change in ${retireMs.toFixed(0)} ms; first page ${firstPage.ms.toFixed(2)} ms, offset 99,950 ${deep.ms.toFixed(2)} ms, ` +
        `completed at 91,950 ${deepCompleted.ms.toFixed(2)} ms, failed at 1,990 ${liveFailed.ms.toFixed(2)} ms, active() of 6,000 ${activeMs.toFixed(1)} ms`,
    );
  });
});
