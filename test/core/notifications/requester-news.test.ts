// start-app first: it loads reflect-metadata for the container the app builds.
import { startApp } from '../../helpers/start-app.js';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hashSecret } from '@crateflow/sdk';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';
import { startFakeNtfy } from '../../fakes/fake-ntfy.js';
import { api } from '../../helpers/api-client.js';
import { writeAlbum } from '../../helpers/write-album.js';

const ADMIN = { authorization: `Basic ${Buffer.from('admin:admin password 1').toString('base64')}` };

// A requester hears on their own channel (their ntfy topic) that a request was declined or is in the library;
// the household's topic hears only what its `events` list names.
describe('news of a request, on the requester\'s own channel', () => {
  it('tells the requester, on their topic, of a decline with its reason and of an album in the library', async (t) => {
    const ntfy = await startFakeNtfy();
    const app = await startApp({
      config: {
        server: { public_url: 'https://music.example.org' },
        ui: { auth: { enabled: true, type: 'basic', username: 'admin', password_hash: await hashSecret('admin password 1') } },
        notifications: [{ name: 'phone', type: 'ntfy', url: ntfy.url, topic: 'household', events: ['download_completed'], digest: 'off' }],
        library: { sync_interval: '1d' },
      },
    });
    t.after(async () => {
      await app.close();
      await ntfy.close();
    });
    const call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers: Record<string, string> = ADMIN) => api<T>(app.baseUrl, method, path, body, headers);

    const wrongTopic = await call<{ errors: { path: string }[] }>('POST', '/api/v1/users', { name: 'kim', password: 'kim password', notify: { channel: 'phone', to: 'not a topic!' } });
    assert.deepEqual([wrongTopic.status, wrongTopic.body.errors[0]?.path], [400, 'body.notify.to']);
    const noChannel = await call<{ errors: { path: string }[] }>('POST', '/api/v1/users', { name: 'kim', password: 'kim password', notify: { channel: 'pager', to: 'kim' } });
    assert.deepEqual([noChannel.status, noChannel.body.errors[0]?.path], [400, 'body.notify.channel']);
    assert.equal((await call('POST', '/api/v1/users', { name: 'kim', password: 'kim password', notify: { channel: 'phone', to: 'kim-only' } })).status, 201);
    const kim = { authorization: `Basic ${Buffer.from('kim:kim password').toString('base64')}` };

    const declined = await call<{ items: QueueItem[] }>('POST', '/api/v1/queue', { artist: 'Low', album: 'Not This One' }, kim);
    assert.equal((await call('POST', `/api/v1/queue/${declined.body.items[0]?.id}/reject`, { reason: 'we have it on vinyl' })).status, 200);
    const [decline] = await ntfy.waitFor(1, 10_000);
    assert.deepEqual([decline?.topic, decline?.title, decline?.message], ['kim-only', 'Declined: Low – Not This One', 'admin: we have it on vinyl']);

    // Approved, then found by a library sync: in the library.
    const wanted = await call<{ items: QueueItem[] }>('POST', '/api/v1/queue', { artist: 'Low', album: 'Double Negative' }, kim);
    assert.equal((await call('POST', `/api/v1/queue/${wanted.body.items[0]?.id}/approve`)).status, 200);
    await writeAlbum(join(app.dataDir, '..', 'music', 'Low', 'Double Negative'));
    assert.equal((await call('POST', '/api/v1/library/sync')).status, 202);
    const [, ready] = await ntfy.waitFor(2, 10_000);
    assert.deepEqual([ready?.topic, ready?.title, ready?.click], ['kim-only', 'In the library: Low – Double Negative', 'https://music.example.org/my-requests']);

    // Their own cancel is no news; the household topic heard nothing of any of it.
    const cancelled = await call<{ items: QueueItem[] }>('POST', '/api/v1/queue', { artist: 'Low', album: 'Changed Mind' }, kim);
    assert.equal((await call('POST', `/api/v1/requests/${cancelled.body.items[0]?.id}/cancel`, undefined, kim)).status, 200);
    const probe = await call<{ items: QueueItem[] }>('POST', '/api/v1/queue', { artist: 'Low', album: 'Probe' }, kim);
    assert.equal((await call('POST', `/api/v1/queue/${probe.body.items[0]?.id}/reject`)).status, 200);
    const all = await ntfy.waitFor(3, 10_000);
    assert.deepEqual(all.map((m) => [m.topic, m.title]), [
      ['kim-only', 'Declined: Low – Not This One'],
      ['kim-only', 'In the library: Low – Double Negative'],
      ['kim-only', 'Declined: Low – Probe'],
    ]);
    assert.equal(ntfy.messages.length, 3);
  });
});
