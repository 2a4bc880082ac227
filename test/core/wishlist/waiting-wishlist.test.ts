import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '@crateflow/sdk';
import { EventBus } from '../../../core/events/event-bus.js';
import { createLogger } from '../../../core/logging/create-logger.js';
import { LoadedPlugins } from '../../../core/plugins/plugin-host.js';
import { CORE_COLLECTIONS, emptyCoreData, type CoreData } from '../../../core/storage/core-data.js';
import { CoreStore } from '../../../core/storage/core-store.js';
import { JsonDocument } from '../../../core/storage/json-document.js';
import { WaitingWishlist } from '../../../core/wishlist/waiting-wishlist.js';
import type { WishlistItem } from '../../../core/wishlist/wishlist-item.schema.js';

const MBID = '0E9B3B0A-6B3E-4A8F-9D3C-1C2B3A4D5E6F';

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-waiting-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const item = (n: number, extra: Partial<WishlistItem> = {}): WishlistItem => ({
  id: `w${n}`, artist: 'Band', album: `Album\t${n}`, type: 'album', status: 'wanted', added_at: `2026-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`, ...extra,
});
const albums = (items: readonly WishlistItem[]) => items.map((i) => i.album);

/** w0..w(n-1) wait; every third then leaves (handed off or removed). */
function fill(list: WaitingWishlist, n: number): void {
  for (let i = 0; i < n; i++) list.stageWaiting(item(i, i === 1 ? { mbid: MBID } : {}));
  for (let i = 0; i < n; i += 3) list.stageLeft(item(i, i === 1 ? { mbid: MBID } : {}));
}

async function answers(list: WaitingWishlist) {
  const visited: string[] = [];
  await list.each((waiting) => visited.push(waiting.id));
  return {
    count: list.count,
    newest: albums(await list.page(0, 3)),
    later: albums(await list.page(5, 2)),
    oldest: albums(await list.oldest(3)),
    visited: visited.length,
    firstVisited: visited.slice(0, 3),
    byMbid: list.find({ artist: '', mbid: MBID.toLowerCase() }),
    byName: list.find({ artist: 'the band', album: 'Album 5' }),
    left: [list.has('w3'), list.find({ artist: 'Band', album: 'Album 3' }), await list.get('w3')],
    kept: (await list.get('w4'))?.album,
  };
}

describe('WaitingWishlist', () => {
  it('pages newest and oldest first, finds items by id, mbid and name, and forgets those that left; the same before and after the flush', async (t) => {
    const list = await WaitingWishlist.open(join(await tempDir(t), 'wishlist-waiting.jsonl'), 0);
    t.after(() => list.close());
    fill(list, 12);
    assert.throws(() => list.stageLeft(item(0)), /wishlist item "w0" is not waiting/);
    assert.throws(() => list.stageWaiting(item(99, { status: 'downloading' })), /only wanted items wait/);
    // Not yet in the file: each() reads the file, so it sees nothing before the flush.
    const staged = await answers(list);
    assert.deepEqual(staged, {
      count: 8,
      newest: ['Album\t11', 'Album\t10', 'Album\t8'],
      later: ['Album\t4', 'Album\t2'],
      oldest: ['Album\t1', 'Album\t2', 'Album\t4'],
      visited: 0,
      firstVisited: [],
      byMbid: 'w1',
      byName: 'w5',
      left: [false, undefined, undefined],
      kept: 'Album\t4',
    });
    await list.flush();
    assert.deepEqual(await answers(list), { ...staged, visited: 8, firstVisited: ['w1', 'w2', 'w4'] });
  });

  it('reads a page in one go when its lines lie close together, and line by line when they do not or are not written yet', async (t) => {
    const list = await WaitingWishlist.open(join(await tempDir(t), 'wishlist-waiting.jsonl'), 0);
    t.after(() => list.close());
    const big = (n: number) => item(n, { album: `${n}:${'x'.repeat(100_000)}` });
    for (let n = 0; n < 4; n++) list.stageWaiting(big(n));
    for (let n = 4; n < 8; n++) list.stageWaiting(item(n));
    await list.flush();
    list.stageWaiting(item(8)); // staged, not yet in the file
    const heads = (items: WishlistItem[]) => items.map((i) => i.album?.slice(0, 8));
    assert.deepEqual(heads(await list.page(0, 6)), ['Album\t8', 'Album\t7', 'Album\t6', 'Album\t5', 'Album\t4', `3:${'x'.repeat(6)}`]);
    assert.deepEqual(heads(await list.oldest(5)), ['0:xxxxxx', '1:xxxxxx', '2:xxxxxx', '3:xxxxxx', 'Album\t4']);
    assert.equal((await list.oldest(1))[0]?.album?.length, 100_002);
  });

  it('takes an album back after it left, and its second line stands', async (t) => {
    const list = await WaitingWishlist.open(join(await tempDir(t), 'wishlist-waiting.jsonl'), 0);
    t.after(() => list.close());
    list.stageWaiting(item(1));
    list.stageLeft(item(1));
    list.stageWaiting(item(7, { album: 'Album\t1' }));
    assert.deepEqual([list.count, list.find({ artist: 'Band', album: 'Album 1' }), list.has('w1')], [1, 'w7', false]);
  });

  it('starts from its saved index with the answers of a full read, and cuts off lines past the acknowledged length', async (t) => {
    const path = join(await tempDir(t), 'wishlist-waiting.jsonl');
    const list = await WaitingWishlist.open(path, 0);
    fill(list, 400);
    await list.flush();
    const saved = list.bytes;
    await list.close(saved);
    const more = await WaitingWishlist.open(path, saved);
    more.stageLeft(item(4));
    more.stageWaiting(item(1000));
    await more.flush();
    const acknowledged = more.bytes;
    more.stageWaiting(item(1001));
    await more.flush(); // written, but no commit recorded it: a crash before the core document's append
    await more.close();

    // A damaged first line proves the lines the saved index covers are not read again (a full read refuses it).
    const text = await readFile(path, 'utf8');
    await writeFile(path, `X${text.slice(1)}`);
    const fromIndex = await WaitingWishlist.open(path, acknowledged);
    assert.equal((await stat(path)).size, acknowledged, 'the unacknowledged line is cut off');
    const indexed = { ...(await answers(fromIndex)), visited: 0, firstVisited: [] };
    await fromIndex.close();
    await rm(`${path}.idx`);
    await assert.rejects(WaitingWishlist.open(path, acknowledged), /wishlist-waiting\.jsonl: line 1 is not a waiting-list line/);
    await writeFile(path, text.slice(0, acknowledged));
    const read = await WaitingWishlist.open(path, acknowledged);
    t.after(() => read.close());
    assert.deepEqual({ ...(await answers(read)), visited: 0, firstVisited: [] }, indexed);
    assert.deepEqual([indexed.count, indexed.newest, indexed.kept, read.has('w1001')], [266, ['Album\t1000', 'Album\t398', 'Album\t397'], undefined, false]);
    await assert.rejects(WaitingWishlist.open(path, acknowledged + 1), /holds \d+ bytes but \d+ were acknowledged; restore/);
  });
});

describe('CoreStore and the waiting wishlist', () => {
  async function openStore(dir: string) {
    const doc = await JsonDocument.open<CoreData>(join(dir, 'crateflow.json'), emptyCoreData, { collections: [...CORE_COLLECTIONS] });
    const plugins = new LoadedPlugins([], undefined, undefined, undefined, []);
    const events = new EventBus(doc, plugins, systemClock(), createLogger('silent'), () => crypto.randomUUID(), 1000);
    return { doc, store: await CoreStore.open(doc, events, dir) };
  }

  it('moves the wanted items of an earlier version that never had a download out of the document, once', async (t) => {
    const dir = await tempDir(t);
    const earlier = { ...emptyCoreData(), history_bytes: 0 } as Partial<CoreData>;
    delete earlier.archive_bytes;
    delete earlier.waiting_bytes;
    earlier.wishlist = { w1: item(1), w2: item(2, { status: 'downloading' }), w3: item(3, { not_before: '2026-01-02T00:00:00.000Z' }), w4: item(4) };
    earlier.downloads = {
      d3: { id: 'd3', wishlist_id: 'w3', artist: 'Band', client: 'blackhole', state: 'failed', progress: 0, attempts: 1, created_at: 'x', updated_at: 'x' },
      d2: { id: 'd2', wishlist_id: 'w2', artist: 'Band', client: 'blackhole', state: 'queued', progress: 0, attempts: 1, created_at: 'x', updated_at: 'x' },
    };
    await writeFile(join(dir, 'crateflow.json'), JSON.stringify(earlier));
    const { store } = await openStore(dir);
    assert.deepEqual(Object.keys(store.data.wishlist).sort(), ['w2', 'w3'], 'items with a download stay');
    assert.deepEqual(albums(await store.waiting.page(0, 10)), ['Album\t4', 'Album\t1']);
    assert.equal(store.data.waiting_bytes, store.waiting.bytes);
    const length = store.waiting.bytes;
    await store.close();
    const { store: again } = await openStore(dir);
    t.after(() => again.close());
    assert.deepEqual([again.waiting.count, again.waiting.bytes, Object.keys(again.data.wishlist).sort()], [2, length, ['w2', 'w3']]);
  });

  it('puts a hand-off back whole when its commit fails: the item waits again and is not in the document', async (t) => {
    const dir = await tempDir(t);
    const { doc, store } = await openStore(dir);
    await store.mutate((_data, _emit, { waiting }) => {
      waiting.stageWaiting(item(1));
      waiting.stageWaiting(item(2));
    });
    const acknowledged = store.data.waiting_bytes;
    let failing = true;
    doc.beforeWrite(async () => {
      if (failing) throw new Error('no space left on device');
    });
    const handOff = (data: CoreData, waiting: { stageLeft(i: WishlistItem): void }) => {
      waiting.stageLeft(item(1));
      data.wishlist.w1 = { ...item(1), status: 'downloading' };
    };
    await assert.rejects(store.mutate((data, _emit, { waiting }) => handOff(data, waiting)), /could not be saved/);
    failing = false;
    assert.equal((await stat(join(dir, 'wishlist-waiting.jsonl'))).size, acknowledged, 'the refused line is cut off');
    assert.deepEqual([store.data.waiting_bytes, store.waiting.count, store.waiting.has('w1'), store.data.wishlist.w1], [acknowledged, 2, true, undefined]);
    await store.mutate((data, _emit, { waiting }) => handOff(data, waiting));
    await store.close();
    const { store: again } = await openStore(dir);
    t.after(() => again.close());
    assert.deepEqual([again.waiting.count, again.waiting.has('w1'), again.data.wishlist.w1?.status], [1, false, 'downloading']);
  });

  it('keeps counting the file after the first commit of an upgraded document fails (its snapshot has no length for the file)', async (t) => {
    const dir = await tempDir(t);
    const earlier = { ...emptyCoreData(), history_bytes: 0 } as Partial<CoreData>;
    delete earlier.archive_bytes;
    delete earlier.waiting_bytes;
    await writeFile(join(dir, 'crateflow.json'), JSON.stringify(earlier));
    const { doc, store } = await openStore(dir);
    let failing = true;
    doc.beforeWrite(async () => {
      if (failing) throw new Error('no space left on device');
    });
    await assert.rejects(store.mutate((_data, _emit, { waiting }) => waiting.stageWaiting(item(1))), /could not be saved/);
    failing = false;
    assert.deepEqual([store.data.waiting_bytes, store.waiting.bytes, store.waiting.count], [0, 0, 0]);
    await store.mutate((_data, _emit, { waiting }) => waiting.stageWaiting(item(2)));
    await store.close();
    const { store: again } = await openStore(dir);
    t.after(() => again.close());
    assert.deepEqual([again.waiting.count, again.waiting.has('w2'), again.waiting.has('w1')], [1, true, false]);
  });
});
