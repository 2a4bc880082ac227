import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '@crateflow/sdk';
import { EventBus } from '../../../core/events/event-bus.js';
import { createLogger } from '../../../core/logging/create-logger.js';
import { LoadedPlugins } from '../../../core/plugins/plugin-host.js';
import { CORE_COLLECTIONS, emptyCoreData, type CoreData } from '../../../core/storage/core-data.js';
import { CoreStore } from '../../../core/storage/core-store.js';
import { JsonDocument } from '../../../core/storage/json-document.js';
import type { WishlistItem, WishlistStatus } from '../../../core/wishlist/wishlist-item.schema.js';
import { WishlistOrder } from '../../../core/wishlist/wishlist-order.js';
import { seededRandom } from '../../resilience/seeded-random.js';

const STATUSES: WishlistStatus[] = ['wanted', 'downloading', 'downloaded', 'failed'];

async function openStore(t: TestContext): Promise<{ store: CoreStore; doc: JsonDocument<CoreData> }> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-wishlist-order-'));
  const doc = await JsonDocument.open<CoreData>(join(dir, 'crateflow.json'), emptyCoreData, { collections: [...CORE_COLLECTIONS] });
  const events = new EventBus(doc, new LoadedPlugins([], undefined, undefined, undefined, []), systemClock(), createLogger('silent'), () => crypto.randomUUID(), 1000);
  const store = await CoreStore.open(doc, events, dir);
  t.after(async () => {
    await store.close();
    await doc.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { store, doc };
}

const item = (id: string, status: WishlistStatus): WishlistItem => ({ id, artist: `Artist ${id}`, album: 'Album', type: 'album', status, added_at: '2026-01-01T00:00:00.000Z' });

/** What the order must answer, from a walk of the collection (insertion order, newest first). */
function walked(store: CoreStore, offset: number, limit: number, status?: WishlistStatus): { ids: string[]; total: number } {
  const all = Object.values(store.data.wishlist).filter((i) => !status || i.status === status).reverse();
  return { ids: all.slice(offset, offset + limit).map((i) => i.id), total: all.length };
}

function check(store: CoreStore, order: WishlistOrder, when: string): void {
  for (const status of [undefined, ...STATUSES]) {
    const expected = walked(store, 0, Number.MAX_SAFE_INTEGER, status);
    assert.equal(order.count(status), expected.total, `count of ${status ?? 'all'} ${when}`);
    for (const [offset, limit] of [[0, 5], [3, 4], [Math.max(0, expected.total - 2), 5], [expected.total + 1, 5]] as const) {
      assert.deepEqual(order.page(offset, limit, status), walked(store, offset, limit, status).ids, `page ${offset}+${limit} of ${status ?? 'all'} ${when}`);
    }
  }
  assert.deepEqual([...order.oldest('wanted')], walked(store, 0, Number.MAX_SAFE_INTEGER, 'wanted').ids.reverse(), `oldest wanted ${when}`);
  for (const field of ['queue', 'wishlist', 'downloads', 'jobs'] as const) assert.equal(store.size(field), Object.keys(store.data[field]).length, `size of ${field} ${when}`);
}

describe('WishlistOrder', () => {
  it('pages, counts and lists the oldest wanted as a walk of the wishlist does, through adds, status changes, removals, a change that throws part-way and a rolled-back commit', async (t) => {
    const { store, doc } = await openStore(t);
    const random = seededRandom(4242);
    let next = 0;
    await store.mutate((data) => {
      for (let i = 0; i < 50; i++, next++) data.wishlist[`w${next}`] = item(`w${next}`, 'wanted');
    });
    const order = new WishlistOrder(store); // built from the data as it stands, then kept in step
    check(store, order, 'after the build');

    for (let round = 0; round < 300; round++) {
      const ids = Object.keys(store.data.wishlist);
      await store.mutate((data) => {
        for (let n = 0; n < 5; n++) {
          const roll = random();
          const id = ids[Math.floor(random() * ids.length)];
          if (roll < 0.4 || id === undefined) data.wishlist[`w${next}`] = item(`w${next++}`, STATUSES[Math.floor(random() * 4)] ?? 'wanted');
          else if (roll < 0.8) {
            const target = data.wishlist[id];
            if (target) target.status = STATUSES[Math.floor(random() * 4)] ?? 'wanted';
          } else delete data.wishlist[id];
        }
      });
      check(store, order, `after round ${round}`);
    }

    // A change that throws after writing: what it wrote stays in memory, and the order follows it.
    await assert.rejects(
      store.mutate((data) => {
        data.wishlist[`w${next}`] = item(`w${next++}`, 'failed');
        throw new Error('refused part-way');
      }),
      /refused part-way/,
    );
    check(store, order, 'after a change that threw');

    // A commit that fails: the data goes back, and the order is rebuilt from it.
    let failing = true;
    doc.beforeWrite(async () => {
      if (failing) throw new Error('no space left on device');
    });
    await assert.rejects(store.mutate((data) => {
      data.wishlist[`w${next}`] = item(`w${next++}`, 'downloading');
      const first = Object.keys(data.wishlist)[0];
      if (first) delete data.wishlist[first];
    }));
    failing = false;
    check(store, order, 'after a rollback');
  });

  it('drops the positions of removed items once they outnumber the items, keeping the order', async (t) => {
    const { store } = await openStore(t);
    const order = new WishlistOrder(store);
    await store.mutate((data) => {
      for (let i = 0; i < 10; i++) data.wishlist[`keep${i}`] = item(`keep${i}`, i % 2 ? 'wanted' : 'failed');
    });
    for (let batch = 0; batch < 3; batch++) {
      await store.mutate((data) => {
        for (let i = 0; i < 2000; i++) data.wishlist[`gone${batch}-${i}`] = item(`gone${batch}-${i}`, 'wanted');
      });
      await store.mutate((data) => {
        for (let i = 0; i < 2000; i++) delete data.wishlist[`gone${batch}-${i}`];
      });
    }
    check(store, order, 'after 6,000 adds and removals');
    assert.deepEqual(order.page(0, 3), ['keep9', 'keep8', 'keep7']);
  });
});
