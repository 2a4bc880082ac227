import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { Store } from '../../../core/storage/store.js';
import { QueueTable } from '../../../core/queue/queue-table.js';
import { AlbumRegistry } from '../../../core/queue/album-registry.js';
import { WishlistTable } from '../../../core/wishlist/wishlist-table.js';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';

async function open(t: TestContext): Promise<{ store: Store; queue: QueueTable; wishlist: WishlistTable; registry: AlbumRegistry }> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-registry-'));
  const store = await Store.open(dir, { exclusive: true });
  t.after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { store, queue: new QueueTable(store), wishlist: new WishlistTable(store), registry: new AlbumRegistry(store) };
}

const MBID = '0383dadf-2a4e-4d10-a46a-e9e041da8eb3';
const pending = (id: string, fields: Partial<QueueItem> = {}): QueueItem => ({ id, artist: 'Boards of Canada & Autechre', album: 'Split Signals', type: 'album', source: 'test', status: 'pending', added_at: '2026-11-01T00:00:00.000Z', ...fields });

describe('AlbumRegistry', () => {
  it('answers the wishlist first, then a pending item, then the latest decision, by mbid or by credit set and title', async (t) => {
    const { store, queue, wishlist, registry } = await open(t);
    assert.equal(registry.find({ artist: 'Autechre', album: 'Split Signals' }), undefined);
    await store.change(() => queue.insert(pending('q1')));
    await store.change(() => queue.decide({ ...pending('q1'), status: 'rejected', decided_at: '2026-11-02T00:00:00.000Z' }));
    assert.deepEqual(registry.find({ artist: 'Autechre and Boards of Canada', album: 'split signals' }), { in: 'queue', id: 'q1', status: 'rejected' });
    await store.change(() => queue.insert(pending('q2', { mbid: MBID.toUpperCase() })));
    assert.deepEqual(registry.find({ artist: 'Someone Else', mbid: MBID }), { in: 'queue', id: 'q2', status: 'pending' }, 'by mbid whatever the name');
    assert.deepEqual(registry.find({ artist: 'Boards of Canada & Autechre', album: 'Split Signals' }), { in: 'queue', id: 'q2', status: 'pending' }, 'pending before a decision');
    await store.change(() => wishlist.insertWaiting({ id: 'w1', artist: 'Autechre, Boards of Canada', album: 'Split Signals', type: 'album', status: 'wanted', added_at: '2026-11-03T00:00:00.000Z' }));
    assert.deepEqual(registry.find({ artist: 'Boards of Canada & Autechre', album: 'Split Signals' }), { in: 'wishlist', id: 'w1', status: 'wanted' }, 'the wishlist first');
    assert.deepEqual(registry.find({ artist: 'x', release_group_mbid: MBID }), { in: 'queue', id: 'q2', status: 'pending' }, 'a release-group mbid matches too');
  });

  it('answers with one indexed search per table, however many items there are', async (t) => {
    const { store } = await open(t);
    const plan = (store.db.prepare(`EXPLAIN QUERY PLAN SELECT 1 FROM queue_items WHERE mbid IN (@mbid, @group) OR name_key = @name`).all({ mbid: 'a', group: 'b', name: 'c' }) as { detail: string }[]).map((row) => row.detail).join('\n');
    assert.doesNotMatch(plan, /SCAN queue_items/, plan);
    const wishlistPlan = (store.db.prepare(`EXPLAIN QUERY PLAN SELECT 1 FROM wishlist_items WHERE mbid IN (@mbid, @group) OR name_key = @name`).all({ mbid: 'a', group: 'b', name: 'c' }) as { detail: string }[]).map((row) => row.detail).join('\n');
    assert.doesNotMatch(wishlistPlan, /SCAN wishlist_items/, wishlistPlan);
  });
});
