import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';
import { api, eventually } from '../../helpers/api-client.js';
import { writeAlbum } from '../../helpers/write-album.js';
import { add, addOne, API_KEY, pending, startQueueApp, wishlist } from './queue-test-app.js';

interface BulkAnswer {
  count: number;
  in_library?: number;
  wishlist_ids?: string[];
}

describe('POST /api/v1/queue/approve', () => {
  it('answers the wishlist ids the approvals made, in the order decided, which GET /wishlist lists', async (t) => {
    const { app } = await startQueueApp(t);
    const low = await addOne(app, { artist: 'Low', album: 'Double Negative' });
    const bill = await addOne(app, { artist: 'Bill Callahan', album: 'Ytilaar' });
    const res = await api<BulkAnswer>(app.baseUrl, 'POST', '/api/v1/queue/approve', { ids: [low.id, bill.id] });
    assert.equal(res.status, 200);
    assert.equal(res.body.count, 2);
    const listed = (await wishlist(app)).body.items;
    const byQueueId = (id: string) => listed.find((item) => item.queue_id === id)?.id;
    assert.deepEqual(res.body.wishlist_ids, [byQueueId(low.id), byQueueId(bill.id)]);
  });

  it('names the existing wishlist item for an album already wanted, and none for an album the library has', async (t) => {
    const { app, events } = await startQueueApp(t);
    // Both wait in the queue while the library syncs one of them in and the other is added to the wishlist directly.
    const owned = await addOne(app, { artist: 'Low', album: 'Things We Lost in the Fire' });
    const again = await addOne(app, { artist: 'Low', album: 'Ones and Sixes' });
    await writeAlbum(join(dirname(app.dataDir), 'music', 'Low', 'Things We Lost in the Fire'));
    const sync = await api<{ job: { id: string } }>(app.baseUrl, 'POST', '/api/v1/library/sync');
    await eventually(async () => (await api<{ status: string }>(app.baseUrl, 'GET', `/api/v1/jobs/${sync.body.job.id}`)).body.status === 'completed' || undefined);
    const joined = await api<{ id: string }>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Low', album: 'Ones and Sixes' });
    assert.equal(joined.status, 201, JSON.stringify(joined.body));

    const res = await api<BulkAnswer>(app.baseUrl, 'POST', '/api/v1/queue/approve', { ids: [owned.id, again.id] });
    assert.equal(res.body.in_library, 1);
    assert.deepEqual(res.body.wishlist_ids, [joined.body.id]);
    const decided = await api<{ items: QueueItem[] }>(app.baseUrl, 'GET', '/api/v1/queue?status=approved');
    assert.equal(decided.body.items.find((item) => item.id === owned.id)?.wishlist_id, undefined);
    assert.equal(decided.body.items.find((item) => item.id === again.id)?.wishlist_id, joined.body.id);
    // queue_approved says whether the library had it: a chat bot answers "already in your library" from the event.
    assert.deepEqual(events.dataOf('queue_approved').map((data) => [data.album, data.in_library]), [['Things We Lost in the Fire', true], ['Ones and Sixes', false]]);
  });
});

describe('POST /api/v1/queue/{id}/approve', () => {
  it('answers the item with the wishlist id it became', async (t) => {
    const { app } = await startQueueApp(t);
    const item = await addOne(app, { artist: 'Low', album: 'Double Negative' });
    const res = await api<{ item: QueueItem }>(app.baseUrl, 'POST', `/api/v1/queue/${item.id}/approve`);
    assert.equal(res.status, 200);
    const listed = (await wishlist(app)).body.items;
    assert.equal(res.body.item.wishlist_id, listed[0]?.id);
  });
});

describe('GET /api/v1/queue/pending?sort=artist', () => {
  it('lists A–Z unless an order is given', async (t) => {
    const { app, clock } = await startQueueApp(t);
    for (const [artist, album] of [['Low', 'C'], ['Autechre', 'A'], ['Pram', 'B']]) {
      await add(app, { artist, album });
      await clock.advance(1000);
    }
    const artists = async (query: string) => (await pending(app, query)).body.items.map((item) => item.artist);
    assert.deepEqual(await artists('?sort=artist'), ['Autechre', 'Low', 'Pram']);
    assert.deepEqual(await artists('?sort=artist&order=desc'), ['Pram', 'Low', 'Autechre']);
    assert.deepEqual(await artists(''), ['Pram', 'Autechre', 'Low'], 'the default is still newest first');
  });
});

describe('POST /api/v1/queue with an API key', () => {
  it('gives items without a source the key\'s name as their source, and keeps a source given', async (t) => {
    const { app } = await startQueueApp(t);
    const headers = { 'x-api-key': API_KEY };
    const res = await api<{ items: QueueItem[] }>(app.baseUrl, 'POST', '/api/v1/queue', [{ artist: 'Low', album: 'C' }, { artist: 'Pram', album: 'B', source: 'my-flow' }], headers);
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.items.map((item) => item.source), ['node-red', 'my-flow']);
    const anonymous = await addOne(app, { artist: 'Autechre', album: 'A' });
    assert.equal(anonymous.source, 'api');
  });
});
