import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { DomainEvent } from '@crateflow/sdk';
import { EventBus } from '../../core/events/event-bus.js';
import { startFakeJellyfin } from '../fakes/fake-jellyfin.js';
import { startFakeSubsonic } from '../fakes/fake-subsonic.js';
import { generateAlbums, type FakeAlbum } from '../fakes/generate-albums.js';
import { api, eventually } from '../helpers/api-client.js';
import { startApp, type StartedApp } from '../helpers/start-app.js';

const ALBUMS = generateAlbums(1200, { untaggedEvery: 10 });
const API_KEY = '5c1e0d4f3a2b4c6d8e9f0a1b2c3d4e5f';

function album(index: number): FakeAlbum {
  const found = ALBUMS[index];
  if (!found) throw new Error(`no generated album ${index}`);
  return found;
}

async function startWith(t: TestContext, library: Record<string, unknown>): Promise<{ app: StartedApp; events: DomainEvent[] }> {
  const app = await startApp({ config: { library: { sync_interval: '1d', ...library } } });
  const events: DomainEvent[] = [];
  app.crateflow.container.resolve(EventBus).subscribe((event) => events.push(event));
  t.after(() => app.close());
  return { app, events };
}

async function want(app: StartedApp, item: Record<string, unknown>): Promise<void> {
  const res = await api(app.baseUrl, 'POST', '/api/v1/wishlist', { source: 'e2e', ...item });
  assert.equal(res.status, 201, JSON.stringify(res.body));
}

async function sync(app: StartedApp): Promise<{ status: string; summary: Record<string, number>; error?: string }> {
  const started = await api<{ job: { id: string } }>(app.baseUrl, 'POST', '/api/v1/library/sync');
  assert.equal(started.status, 202);
  return eventually(async () => {
    const res = await api<{ status: string; summary: Record<string, number>; error?: string }>(app.baseUrl, 'GET', `/api/v1/jobs/${started.body.job.id}`);
    return res.body.status === 'running' ? undefined : res.body;
  }, 15_000, 'the sync job');
}

describe('library sync to wishlist_removed', () => {
  it('reads every album from Subsonic and removes wishlist items owned by MusicBrainz id or by normalised name', async (t) => {
    const subsonic = await startFakeSubsonic({ username: 'crate', password: 'secret', albums: ALBUMS });
    t.after(() => subsonic.close());
    const { app, events } = await startWith(t, { type: 'subsonic', url: subsonic.url, username: 'crate', password: 'secret' });
    const byMbid = album(3);
    const byName = album(9); // untagged: no MusicBrainz id on the server
    assert.equal(byName.mbid, undefined);
    await want(app, { artist: 'Someone Else Entirely', album: 'A Different Title', mbid: byMbid.mbid });
    await want(app, { artist: `The ${byName.artist}`, album: `${byName.name} (Deluxe Edition)` });
    await want(app, { artist: 'Not In The Library', album: 'Nowhere' });

    const job = await sync(app);
    assert.equal(job.status, 'completed', job.error);
    assert.deepEqual(job.summary, { albums: ALBUMS.length, removed: 2, skipped: 0 });
    assert.equal(subsonic.received.filter((r) => r.path === '/rest/getAlbumList2').length, 3);
    const removed = events.filter((e) => e.type === 'wishlist_removed').map((e) => e.data.album);
    assert.deepEqual(removed.sort(), ['A Different Title', `${byName.name} (Deluxe Edition)`].sort());
    const left = await api<{ items: { artist: string }[] }>(app.baseUrl, 'GET', '/api/v1/wishlist');
    assert.deepEqual(left.body.items.map((i) => i.artist), ['Not In The Library']);
  });

  it('reads every album from Jellyfin and removes a wishlist item owned by release-group id', async (t) => {
    const jellyfin = await startFakeJellyfin({ apiKey: API_KEY, albums: ALBUMS });
    t.after(() => jellyfin.close());
    const { app, events } = await startWith(t, { type: 'jellyfin', url: jellyfin.url, api_key: API_KEY, page_size: 500 });
    const target = album(42);
    await want(app, { artist: target.artist, album: 'Some Other Edition Name', mbid: target.releaseGroupMbid });
    await want(app, { artist: 'Not In The Library', album: 'Nowhere' });

    const job = await sync(app);
    assert.equal(job.status, 'completed', job.error);
    assert.deepEqual(job.summary, { albums: ALBUMS.length, removed: 1, skipped: 0 });
    assert.equal(jellyfin.received.filter((r) => r.path === '/Items').length, 3);
    assert.deepEqual(events.filter((e) => e.type === 'wishlist_removed').map((e) => e.data), [{ artist: target.artist, album: 'Some Other Edition Name', mbid: target.releaseGroupMbid }]);
  });

  it('fails the sync job with the reason when the Subsonic server is unreachable, keeps the wishlist and reports degraded', async (t) => {
    const subsonic = await startFakeSubsonic({ username: 'crate', password: 'secret', albums: ALBUMS });
    let running = true;
    t.after(() => (running ? subsonic.close() : undefined));
    const { app } = await startWith(t, { type: 'subsonic', url: subsonic.url, username: 'crate', password: 'secret' });
    await want(app, { artist: album(3).artist, album: album(3).name });
    await subsonic.close();
    running = false;

    const job = await sync(app);
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /Subsonic server at .* is unreachable/);
    assert.equal((await api<{ total: number }>(app.baseUrl, 'GET', '/api/v1/wishlist')).body.total, 1);
    assert.equal((await api<{ status: string }>(app.baseUrl, 'GET', '/health')).body.status, 'degraded');
    const plugins = await api<{ items: { name: string; healthy: boolean; last_error?: string }[] }>(app.baseUrl, 'GET', '/api/v1/plugins');
    const backend = plugins.body.items.find((p) => p.name === 'library-subsonic');
    assert.equal(backend?.healthy, false);
    assert.match(backend?.last_error ?? '', /unreachable/);
  });
});
