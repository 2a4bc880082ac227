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
});
