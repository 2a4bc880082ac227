import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { DomainEvent } from '@crateflow/sdk';
import { EventBus } from '../../core/events/event-bus.js';
import { startFakeJellyfin } from '../fakes/fake-jellyfin.js';
import { startFakeSubsonic } from '../fakes/fake-subsonic.js';
import type { SubsonicFlavour } from '../fakes/subsonic-album-id3.js';
import { generateAlbums, type FakeAlbum } from '../fakes/generate-albums.js';
import { api, eventually } from '../helpers/api-client.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startApp, type StartedApp } from '../helpers/start-app.js';

// 1,200 albums with every case real servers showed us: untagged rips (every 10th: no MusicBrainz ids, so only
// the name can match), collaborations (every 7th), album versions / comments (every 11th) and compilations
// without an ALBUMARTIST tag (every 13th). The indexes below are untagged albums of each kind.
const ALBUMS = generateAlbums(1200, { untaggedEvery: 10, collaborationEvery: 7, versionEvery: 11, compilationEvery: 13 });
const API_KEY = '5c1e0d4f3a2b4c6d8e9f0a1b2c3d4e5f';
const UNTAGGED_PLAIN = 9;
const UNTAGGED_COLLABORATION = 69;
const UNTAGGED_VERSIONED = 109;
const UNTAGGED_COMPILATION = 129;
const UNTAGGED_COLLABORATION_BY_GUEST = 139;
const TAGGED = 3;

function album(index: number): FakeAlbum {
  const found = ALBUMS[index];
  if (!found) throw new Error(`no generated album ${index}`);
  return found;
}

async function startWith(t: TestContext, library: Record<string, unknown>, clock?: ManualClock): Promise<{ app: StartedApp; events: DomainEvent[] }> {
  const app = await startApp({ clock, config: { library: { sync_interval: '1d', ...library } } });
  const events: DomainEvent[] = [];
  app.crateflow.container.resolve(EventBus).subscribe((event) => events.push(event));
  t.after(() => app.close());
  return { app, events };
}

async function want(app: StartedApp, item: Record<string, unknown>): Promise<void> {
  const res = await api(app.baseUrl, 'POST', '/api/v1/wishlist', { source: 'e2e', ...item });
  assert.equal(res.status, 201, JSON.stringify(res.body));
}

/** Runs a sync to its end; with `clock`, moves that manual clock on while waiting, past any retry wait. */
async function sync(app: StartedApp, clock?: ManualClock): Promise<{ status: string; summary: Record<string, number>; error?: string }> {
  const started = await api<{ job: { id: string } }>(app.baseUrl, 'POST', '/api/v1/library/sync');
  assert.equal(started.status, 202);
  return eventually(async () => {
    await clock?.advance(1000);
    const res = await api<{ status: string; summary: Record<string, number>; error?: string }>(app.baseUrl, 'GET', `/api/v1/jobs/${started.body.job.id}`);
    return res.body.status === 'running' ? undefined : res.body;
  }, 15_000, 'the sync job');
}

/**
 * Wishlist items as a person (or MusicBrainz) writes them, for albums the server shows differently: each is
 * owned, and only the last is not. `mbid` adds one matched by MusicBrainz id, `byGuest` one naming only the
 * second artist of a collaboration; a plain Subsonic server offers neither (no ids, only the credit as tagged).
 */
async function wantTheTrickyOnes(app: StartedApp, mbid: { mbid: string | undefined } | undefined, byGuest = true): Promise<string[]> {
  const collaboration = album(UNTAGGED_COLLABORATION);
  const guest = album(UNTAGGED_COLLABORATION_BY_GUEST).albumArtists?.[1];
  assert.ok(collaboration.albumArtists && guest && album(UNTAGGED_VERSIONED).version && album(UNTAGGED_COMPILATION).performers);
  const items = [
    { artist: `The ${album(UNTAGGED_PLAIN).artist}`, album: `${album(UNTAGGED_PLAIN).name} (Deluxe Edition)` },
    { artist: collaboration.artist, album: collaboration.name },
    ...(byGuest ? [{ artist: guest.name, album: album(UNTAGGED_COLLABORATION_BY_GUEST).name }] : []),
    { artist: album(UNTAGGED_VERSIONED).artist, album: album(UNTAGGED_VERSIONED).name },
    { artist: 'Various Artists', album: album(UNTAGGED_COMPILATION).name },
    ...(mbid ? [{ artist: 'Someone Else Entirely', album: 'A Different Title', ...mbid }] : []),
  ];
  for (const item of items) await want(app, item);
  await want(app, { artist: 'Not In The Library', album: 'Nowhere' });
  return items.map((item) => item.album).sort();
}

async function assertOnlyTheMissingOneLeft(app: StartedApp, events: DomainEvent[], owned: string[]): Promise<void> {
  assert.deepEqual(events.filter((e) => e.type === 'wishlist_removed').map((e) => e.data.album).sort(), owned);
  const left = await api<{ items: { artist: string }[] }>(app.baseUrl, 'GET', '/api/v1/wishlist');
  assert.deepEqual(left.body.items.map((i) => i.artist), ['Not In The Library']);
}

describe('library sync to wishlist_removed', () => {
  for (const flavour of ['navidrome', 'gonic', 'plain'] satisfies SubsonicFlavour[]) {
    it(`reads all 1,200 albums from ${flavour} and removes every owned wishlist item, however the server shows it`, async (t) => {
      const subsonic = await startFakeSubsonic({ username: 'crate', password: 'secret', albums: ALBUMS, flavour });
      t.after(() => subsonic.close());
      const { app, events } = await startWith(t, { type: 'subsonic', url: subsonic.url, username: 'crate', password: 'secret' });
      const owned = flavour === 'plain' ? await wantTheTrickyOnes(app, undefined, false) : await wantTheTrickyOnes(app, { mbid: album(TAGGED).mbid });

      const job = await sync(app);
      assert.equal(job.status, 'completed', job.error);
      assert.deepEqual(job.summary, { albums: ALBUMS.length, removed: owned.length, skipped: 0 });
      assert.equal(subsonic.received.filter((r) => r.path === '/rest/getAlbumList2').length, 3);
      await assertOnlyTheMissingOneLeft(app, events, owned);
    });
  }

  it('removes a wishlist item crediting a gonic joint album\'s artists in another order than gonic lists them (JAY-Z & Kanye West)', async (t) => {
    // An untagged rip (no MusicBrainz ids: only the names can match) whose ALBUMARTIST tag holds two values. gonic
    // shows the first as displayArtist (`tags.Read` takes `normtag.Get`, the first value: wrtag
    // `tags/normtag/normtag.go`) and lists the artists by artist id, Kanye West first: no credit it sends is
    // "JAY-Z & Kanye West", the order MusicBrainz (and so the wishlist item) gives.
    const throne: FakeAlbum = {
      id: 'a0000000000000000000000000000001', name: 'Watch the Throne', artist: 'JAY-Z', artistId: 'ar-2', songCount: 12, durationSeconds: 2760,
      createdAt: '2026-01-01T00:00:00.000Z', albumArtists: [{ id: 'ar-2', name: 'JAY-Z' }, { id: 'ar-1', name: 'Kanye West' }],
    };
    const subsonic = await startFakeSubsonic({ username: 'crate', password: 'secret', albums: [throne, ...ALBUMS.slice(0, 20)], flavour: 'gonic' });
    t.after(() => subsonic.close());
    const { app, events } = await startWith(t, { type: 'subsonic', url: subsonic.url, username: 'crate', password: 'secret' });
    await want(app, { artist: 'JAY\u2010Z & Kanye West', album: 'Watch the Throne' });
    await want(app, { artist: 'Not In The Library', album: 'Nowhere' });

    const job = await sync(app);
    assert.equal(job.status, 'completed', job.error);
    const library = await api<{ items: { artist: string; artists?: string[] }[] }>(app.baseUrl, 'GET', '/api/v1/library?q=throne');
    assert.deepEqual(library.body.items.map((a) => [a.artist, a.artists]), [['JAY-Z', ['Kanye West', 'Kanye West & JAY-Z']]], 'gonic\'s order, as the plugin read it');
    await assertOnlyTheMissingOneLeft(app, events, ['Watch the Throne']);
  });

  it('reads all 1,200 albums from Jellyfin 10.11 in pages of 100, past a page that timed out, and removes every owned wishlist item', async (t) => {
    // The page at 600 misses the client's deadline once, as a slow 10.11 page does; it is read again after 2 s.
    const jellyfin = await startFakeJellyfin({ apiKey: API_KEY, albums: ALBUMS, version: '10.11.1', stallPages: new Map([[600, 1]]) });
    t.after(() => jellyfin.close());
    const clock = new ManualClock(Date.now());
    const { app, events } = await startWith(t, { type: 'jellyfin', url: jellyfin.url, api_key: API_KEY, timeout_ms: 1000 }, clock);
    const owned = await wantTheTrickyOnes(app, { mbid: album(TAGGED).releaseGroupMbid });

    const job = await sync(app, clock);
    assert.equal(job.status, 'completed', job.error);
    assert.deepEqual(job.summary, { albums: ALBUMS.length, removed: owned.length, skipped: 0 });
    // Twelve full pages, the timed-out one again, and the empty page that ends the listing: TotalRecordCount
    // (1,170 here) is not trusted.
    const starts = jellyfin.received.filter((r) => r.path === '/Items').map((r) => r.query.get('StartIndex'));
    assert.equal(starts.length, 14);
    assert.equal(starts.filter((start) => start === '600').length, 2);
    await assertOnlyTheMissingOneLeft(app, events, owned);
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
