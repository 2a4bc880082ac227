import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startFakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';
import { api, eventually } from '../../helpers/api-client.js';
import { recordEvents } from '../../helpers/record-events.js';
import { startApp } from '../../helpers/start-app.js';
import { JobScheduler } from '../../../core/jobs/job-scheduler.js';

describe('events about a track item', () => {
  it('carry data.title and data.type "track" in events and webhook deliveries; album events keep the specification\'s fields', async (t) => {
    const receiver = await startFakeWebhookReceiver();
    t.after(receiver.close);
    const app = await startApp({
      config: {
        download_client: { type: 'blackhole', poll_interval: '1h', quiet_period_ms: 0 },
        // The longest attempt deadline: a niced run under load saw a 10 s attempt time out, and a failed one is never resent.
        webhooks: [{ name: 'tracks', url: receiver.url, timeout_ms: 30_000, events: ['wishlist_removed', 'download_completed'] }],
      },
    });
    t.after(app.close);
    const events = recordEvents(app);

    const track = await api<{ id: string }>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Slowdive', title: 'Alison', type: 'track' });
    assert.equal(track.status, 201, JSON.stringify(track.body));
    const album = await api<{ id: string }>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Ride', album: 'Nowhere' });
    assert.equal((await api(app.baseUrl, 'DELETE', `/api/v1/wishlist/${album.body.id}`)).status, 204);

    // The blackhole completes the track once its folder (named after the title) has files.
    const poll = () => app.crateflow.container.resolve(JobScheduler).runNow('download_poll');
    await poll();
    const folder = join(app.dataDir, '..', 'complete', 'Slowdive', 'Alison');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, '01 Alison.flac'), 'audio');
    await eventually(async () => {
      await poll();
      return events.dataOf('download_completed').length > 0 || undefined;
    }, 5000, 'download_completed');

    assert.deepEqual(events.dataOf('download_completed'), [{ artist: 'Slowdive', title: 'Alison', type: 'track', download_path: folder }]);
    assert.deepEqual(events.dataOf('wishlist_removed'), [{ artist: 'Ride', album: 'Nowhere' }]);
    const deliveries = (await receiver.waitFor(2, 60_000)).map((request): unknown => JSON.parse(request.text));
    assert.deepEqual(deliveries.map((d) => [Reflect.get(Object(d), 'event'), Reflect.get(Object(d), 'data')]), [
      ['wishlist_removed', { artist: 'Ride', album: 'Nowhere' }],
      ['download_completed', { artist: 'Slowdive', download_path: folder, title: 'Alison', type: 'track' }],
    ]);
  });
});
