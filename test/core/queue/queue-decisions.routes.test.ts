import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';
import { api, eventually } from '../../helpers/api-client.js';
import { addOne, API_KEY, MBID_A, MBID_B, MBID_C, pending, startQueueApp, wishlist, type Bulk, type Problem } from './queue-test-app.js';

describe('POST /api/v1/queue/approve', () => {
  it('approves by ids, moves each item to the wishlist and fires queue_approved with artist, album and mbid', async (t) => {
    const { app, events } = await startQueueApp(t);
    const a = await addOne(app, { artist: 'Low', album: 'Double Negative', mbid: MBID_A, year: 2018 });
    const b = await addOne(app, { artist: 'Slowdive', title: 'Alison' });
    await addOne(app, { artist: 'Ride', album: 'Nowhere' });
    const res = await api<Bulk>(app.baseUrl, 'POST', '/api/v1/queue/approve', { ids: [a.id, b.id] });
    assert.equal(res.status, 200);
    const { wishlist_ids: made, ...answer } = res.body;
    assert.deepEqual(answer, { success: true, count: 2, message: 'Approved 2 items' });
    assert.equal(made?.length, 2, 'one wishlist item per approval');
    assert.deepEqual(events.dataOf('queue_approved'), [{ artist: 'Low', album: 'Double Negative', mbid: MBID_A, decided_via: 'api', in_library: false }, { artist: 'Slowdive', title: 'Alison', type: 'track', decided_via: 'api', in_library: false }]);
    // Approval hands the items to the download client at once (DownloadService.handOff), so they move on to downloading.
    const wanted = await eventually(async () => {
      const items = (await wishlist(app)).body.items;
      return items.every((w) => w.status === 'downloading') ? items : undefined;
    }, 5000, 'the hand-off of both approved items');
    assert.deepEqual(
      wanted.map((w) => [w.artist, w.album, w.title, w.mbid, w.year, w.type, w.status, w.queue_id]).sort(),
      [['Low', 'Double Negative', undefined, MBID_A, 2018, 'album', 'downloading', a.id], ['Slowdive', undefined, 'Alison', undefined, undefined, 'track', 'downloading', b.id]].sort(),
    );
    assert.equal((await pending(app)).body.total, 1);
  });

  it('approves by mbids, whatever their case', async (t) => {
    const { app } = await startQueueApp(t);
    await addOne(app, { artist: 'Low', album: 'Double Negative', mbid: MBID_A });
    await addOne(app, { artist: 'Ride', album: 'Nowhere', mbid: MBID_B });
    await addOne(app, { artist: 'Slowdive', album: 'Souvlaki', mbid: MBID_C });
    const res = await api<Bulk>(app.baseUrl, 'POST', '/api/v1/queue/approve', { mbids: [MBID_A.toUpperCase(), MBID_B] });
    assert.equal(res.body.count, 2);
    assert.deepEqual((await pending(app)).body.items.map((i) => i.mbid), [MBID_C]);
  });

  it('approves every pending item with "all": true', async (t) => {
    const { app, events } = await startQueueApp(t);
    for (const album of ['One', 'Two', 'Three']) await addOne(app, { artist: 'Band', album });
    const res = await api<Bulk>(app.baseUrl, 'POST', '/api/v1/queue/approve', { all: true });
    const { wishlist_ids: made, ...answer } = res.body;
    assert.deepEqual(answer, { success: true, count: 3, message: 'Approved 3 items' });
    assert.equal(made?.length, 3, 'one wishlist item per approval');
    assert.equal((await pending(app)).body.total, 0);
    assert.equal((await wishlist(app)).body.total, 3);
    assert.equal(events.dataOf('queue_approved').length, 3);
  });

  it('answers 400 for an empty selection', async (t) => {
    const { app } = await startQueueApp(t);
    await addOne(app, { artist: 'Band', album: 'One' });
    for (const body of [{}, { ids: [] }, { mbids: [] }, { ids: [], mbids: [], all: false }]) {
      const res = await api<Problem>(app.baseUrl, 'POST', '/api/v1/queue/approve', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.detail, /ids|mbids/);
    }
    assert.equal((await pending(app)).body.total, 1);
  });

  it('skips items that are not pending and unknown ids without counting them', async (t) => {
    const { app, events } = await startQueueApp(t);
    const a = await addOne(app, { artist: 'Band', album: 'One' });
    const b = await addOne(app, { artist: 'Band', album: 'Two' });
    const c = await addOne(app, { artist: 'Band', album: 'Three' });
    await api(app.baseUrl, 'POST', `/api/v1/queue/${a.id}/approve`);
    await api(app.baseUrl, 'POST', `/api/v1/queue/${b.id}/reject`);
    events.clear();
    const res = await api<Bulk>(app.baseUrl, 'POST', '/api/v1/queue/approve', { ids: [a.id, b.id, c.id, 'unknown0000000000'] });
    const { wishlist_ids: made, ...answer } = res.body;
    assert.deepEqual(answer, { success: true, count: 1, message: 'Approved 1 item' });
    assert.equal(made?.length, 1, 'one wishlist item per approval');
    assert.deepEqual(events.events.map((e) => [e.type, e.data.album]), [['queue_approved', 'Three']]);
    assert.equal((await wishlist(app)).body.total, 2);
    const rejectedStill = await api<{ item: QueueItem }>(app.baseUrl, 'POST', `/api/v1/queue/${b.id}/approve`);
    assert.equal(rejectedStill.status, 409);
  });

  it('records decided_by as the API key name, decided_via and decided_at as the decision time', async (t) => {
    const { app, clock } = await startQueueApp(t);
    const a = await addOne(app, { artist: 'Band', album: 'One' });
    const b = await addOne(app, { artist: 'Band', album: 'Two' });
    const bulk = await api<Bulk>(app.baseUrl, 'POST', '/api/v1/queue/approve', { ids: [a.id] }, { 'x-api-key': API_KEY });
    assert.equal(bulk.body.count, 1);
    const single = await api<{ item: QueueItem }>(app.baseUrl, 'POST', `/api/v1/queue/${b.id}/reject`, undefined, { authorization: `Bearer ${API_KEY}` });
    assert.equal(single.status, 200);
    assert.deepEqual([single.body.item.decided_by, single.body.item.decided_via], ['node-red', 'api']);
    assert.equal(single.body.item.decided_at, single.body.item.added_at, 'the manual clock has not moved');
    const anonymous = await addOne(app, { artist: 'Band', album: 'Three' });
    const byNobody = await api<{ item: QueueItem }>(app.baseUrl, 'POST', `/api/v1/queue/${anonymous.id}/approve`);
    assert.equal(byNobody.body.item.decided_by, undefined, 'auth is disabled and no key was sent');
    const wanted = (await wishlist(app)).body.items.find((w) => w.queue_id === a.id);
    assert.ok(wanted, 'the approved item is on the wishlist');
  });

  it('creates no second wishlist item when the album was added to the wishlist while it was pending', async (t) => {
    const { app, events } = await startQueueApp(t);
    const item = await addOne(app, { artist: 'Low', album: 'Double Negative' });
    assert.equal((await api(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Low', album: 'Double Negative (Deluxe Edition)' })).status, 201);
    const res = await api<Bulk>(app.baseUrl, 'POST', '/api/v1/queue/approve', { ids: [item.id] });
    assert.equal(res.body.count, 1);
    assert.equal((await wishlist(app)).body.total, 1);
    assert.deepEqual(events.dataOf('queue_approved'), [{ artist: 'Low', album: 'Double Negative', decided_via: 'api', in_library: false }]);
  });
});

describe('POST /api/v1/queue/reject', () => {
  it('rejects by ids and mbids, fires queue_rejected with artist, album and mbid, and adds nothing to the wishlist', async (t) => {
    const { app, events } = await startQueueApp(t);
    const a = await addOne(app, { artist: 'Low', album: 'Double Negative', mbid: MBID_A });
    await addOne(app, { artist: 'Ride', album: 'Nowhere', mbid: MBID_B });
    await addOne(app, { artist: 'Slowdive', album: 'Souvlaki' });
    const res = await api<Bulk>(app.baseUrl, 'POST', '/api/v1/queue/reject', { ids: [a.id], mbids: [MBID_B.toUpperCase(), MBID_A] });
    assert.deepEqual(res.body, { success: true, count: 2, message: 'Rejected 2 items' });
    assert.deepEqual(events.dataOf('queue_rejected'), [{ artist: 'Low', album: 'Double Negative', mbid: MBID_A, decided_via: 'api' }, { artist: 'Ride', album: 'Nowhere', mbid: MBID_B, decided_via: 'api' }]);
    assert.equal((await wishlist(app)).body.total, 0);
    assert.deepEqual((await pending(app)).body.items.map((i) => i.album), ['Souvlaki']);
  });

  it('answers 400 for an empty selection and for "all", which only approval accepts', async (t) => {
    const { app } = await startQueueApp(t);
    await addOne(app, { artist: 'Band', album: 'One' });
    assert.equal((await api(app.baseUrl, 'POST', '/api/v1/queue/reject', {})).status, 400);
    const all = await api<Problem>(app.baseUrl, 'POST', '/api/v1/queue/reject', { all: true });
    assert.equal(all.status, 400);
    assert.ok(all.body.errors?.some((e) => e.path === 'body' && /all/.test(e.message)), JSON.stringify(all.body));
    assert.equal((await pending(app)).body.total, 1);
  });

  it('skips items already decided without counting them', async (t) => {
    const { app, events } = await startQueueApp(t);
    const a = await addOne(app, { artist: 'Band', album: 'One' });
    await api(app.baseUrl, 'POST', `/api/v1/queue/${a.id}/approve`);
    const res = await api<Bulk>(app.baseUrl, 'POST', '/api/v1/queue/reject', { ids: [a.id] });
    assert.deepEqual(res.body, { success: true, count: 0, message: 'Rejected 0 items' });
    assert.equal(events.dataOf('queue_rejected').length, 0);
  });
});

describe('POST /api/v1/queue/:id/approve and /reject', () => {
  it('approves one item: 200 with the decided item, a wishlist item and one queue_approved event', async (t) => {
    const { app, events } = await startQueueApp(t);
    const a = await addOne(app, { artist: 'Low', album: 'Double Negative', mbid: MBID_A });
    const res = await api<{ item: QueueItem }>(app.baseUrl, 'POST', `/api/v1/queue/${a.id}/approve`);
    assert.equal(res.status, 200);
    assert.equal(res.body.item.id, a.id);
    assert.equal(res.body.item.status, 'approved');
    assert.deepEqual(events.events.map((e) => [e.type, e.data]), [
      ['queue_added', { artist: 'Low', album: 'Double Negative', mbid: MBID_A, id: a.id }],
      ['queue_approved', { artist: 'Low', album: 'Double Negative', mbid: MBID_A, decided_via: 'api', in_library: false }],
    ]);
    assert.equal((await wishlist(app)).body.items[0]?.queue_id, a.id);
  });

  it('rejects one item: 200 with the decided item and one queue_rejected event', async (t) => {
    const { app, events } = await startQueueApp(t);
    const a = await addOne(app, { artist: 'Low', album: 'Double Negative' });
    const res = await api<{ item: QueueItem }>(app.baseUrl, 'POST', `/api/v1/queue/${a.id}/reject`);
    assert.equal(res.status, 200);
    assert.equal(res.body.item.status, 'rejected');
    assert.deepEqual(events.dataOf('queue_rejected'), [{ artist: 'Low', album: 'Double Negative', decided_via: 'api' }]);
    assert.equal((await wishlist(app)).body.total, 0);
  });

  it('answers 404 problem+json naming an unknown id', async (t) => {
    const { app } = await startQueueApp(t);
    for (const action of ['approve', 'reject']) {
      const res = await api<Problem & { id: string }>(app.baseUrl, 'POST', `/api/v1/queue/nosuchitem/${action}`);
      assert.equal(res.status, 404);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.equal(res.body.id, 'nosuchitem');
      assert.match(res.body.detail, /nosuchitem/);
    }
  });

  it('answers 409 naming the status when the item was already decided, and fires nothing', async (t) => {
    const { app, events } = await startQueueApp(t);
    const a = await addOne(app, { artist: 'Band', album: 'One' });
    const b = await addOne(app, { artist: 'Band', album: 'Two' });
    await api(app.baseUrl, 'POST', `/api/v1/queue/${a.id}/approve`);
    await api(app.baseUrl, 'POST', `/api/v1/queue/${b.id}/reject`);
    events.clear();
    for (const [id, action, status] of [[a.id, 'approve', 'approved'], [a.id, 'reject', 'approved'], [b.id, 'approve', 'rejected'], [b.id, 'reject', 'rejected']]) {
      const res = await api<Problem & { id: string; current_status: string }>(app.baseUrl, 'POST', `/api/v1/queue/${id}/${action}`);
      assert.equal(res.status, 409, `${action} of an item already ${status}`);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.equal(res.body.status, 409, 'the problem status stays the HTTP status');
      assert.deepEqual([res.body.id, res.body.current_status], [id, status]);
      assert.match(res.body.detail, new RegExp(`already ${status}`));
    }
    assert.deepEqual(events.events, []);
    assert.equal((await wishlist(app)).body.total, 1);
  });
});
