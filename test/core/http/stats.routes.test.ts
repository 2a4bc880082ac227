import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import { api } from '../../helpers/api-client.js';

describe('GET /api/v1/stats', () => {
  let app: StartedApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  it('counts pending items and lists recent events newest first', async () => {
    await api(app.baseUrl, 'POST', '/api/v1/queue', [{ artist: 'Can', album: 'Tago Mago' }, { artist: 'Neu!', album: 'Neu! 75' }]);
    const res = await api<{ queue: { pending: number }; recent_events: { type: string; data: { artist: string } }[]; last_sync: unknown; plugins: unknown[] }>(app.baseUrl, 'GET', '/api/v1/stats');
    assert.equal(res.status, 200);
    assert.equal(res.body.queue.pending, 2);
    assert.deepEqual(res.body.recent_events.map((e) => `${e.type}:${e.data.artist}`), ['queue_added:Neu!', 'queue_added:Can']);
    assert.equal(res.body.last_sync, null);
    assert.ok(res.body.plugins.length >= 2);
  });

  it('follows approvals, rejections and wishlist changes in its counts', async () => {
    type Counts = { queue: { pending: number }; wishlist: Record<string, number> };
    const counts = async () => (await api<Counts>(app.baseUrl, 'GET', '/api/v1/stats')).body;
    // The download client may take a wanted item at any moment: the wishlist's total is what must add up.
    const onWishlist = (c: Counts) => Object.values(c.wishlist).reduce((sum, n) => sum + n, 0);
    const before = await counts();
    const added = await api<{ items: { id: string }[] }>(app.baseUrl, 'POST', '/api/v1/queue', [{ artist: 'Faust', album: 'IV' }, { artist: 'Cluster', album: 'Zuckerzeit' }]);
    const [keep, drop] = added.body.items;
    assert.ok(keep && drop);
    await api(app.baseUrl, 'POST', `/api/v1/queue/${keep.id}/approve`);
    await api(app.baseUrl, 'POST', `/api/v1/queue/${drop.id}/reject`);
    const direct = await api<{ id: string }>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Harmonia', album: 'Musik von Harmonia' });
    const after = await counts();
    assert.equal(after.queue.pending, before.queue.pending);
    assert.equal(onWishlist(after), onWishlist(before) + 2);
    assert.equal((await api(app.baseUrl, 'DELETE', `/api/v1/wishlist/${direct.body.id}`)).status, 204);
    assert.equal(onWishlist(await counts()), onWishlist(before) + 1);
  });
});
