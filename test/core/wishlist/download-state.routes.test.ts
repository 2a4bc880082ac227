import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WishlistItem } from '../../../core/wishlist/wishlist-item.schema.js';
import { api, eventually } from '../../helpers/api-client.js';
import { addOne, startQueueApp } from '../queue/queue-test-app.js';

describe('GET /api/v1/wishlist while an item is downloading', () => {
  it('gives a blackhole request waiting for its files the word Downloads and /stats use: queued', async (t) => {
    const { app } = await startQueueApp(t);
    const item = await addOne(app, { artist: 'Low', album: 'Double Negative' });
    assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${item.id}/approve`)).status, 200);
    const listed = await eventually(async () => {
      const page = await api<{ items: WishlistItem[] }>(app.baseUrl, 'GET', '/api/v1/wishlist');
      return page.body.items.find((entry) => entry.status === 'downloading');
    }, 10_000, 'the approval to be handed to the blackhole');
    assert.equal(listed.download_state, 'queued');
    const downloads = await api<{ items: { wishlist_id: string; state: string }[] }>(app.baseUrl, 'GET', '/api/v1/downloads');
    assert.equal(downloads.body.items.find((d) => d.wishlist_id === listed.id)?.state, 'queued');
    const stats = await api<{ downloads: Record<string, number> }>(app.baseUrl, 'GET', '/api/v1/stats');
    assert.equal(stats.body.downloads['queued'], 1);
    // Only answers carry it: a wanted item has none.
    const wanted = await api<WishlistItem>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Pram', album: 'Across the Meridian' });
    assert.equal(wanted.body.download_state, undefined);
  });
});
