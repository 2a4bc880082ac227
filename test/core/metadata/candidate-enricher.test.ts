import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CandidateEnricher } from '../../../core/metadata/candidate-enricher.js';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';
import { api, eventually } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import type { StartedApp } from '../../helpers/start-app.js';
import { creditOf, startMetadataApp, yearOf } from './metadata-test-app.js';

interface Added {
  items: QueueItem[];
}

const enricherOf = (app: StartedApp) => app.crateflow.container.resolve(CandidateEnricher);

async function pendingItem(app: StartedApp, id: string): Promise<QueueItem | undefined> {
  for (let offset = 0; ; offset += 500) {
    const page = await api<{ items: QueueItem[]; total: number }>(app.baseUrl, 'GET', `/api/v1/queue/pending?limit=500&offset=${offset}`);
    const found = page.body.items.find((item) => item.id === id);
    if (found || offset + 500 >= page.body.total) return found;
  }
}

/** Lets the enricher's settle delay pass on the manual clock and waits until it has nothing left to do. */
async function enrich(app: StartedApp, clock: ManualClock): Promise<void> {
  await clock.advance(1000);
  await enricherOf(app).idle();
}

describe('background enrichment of candidates proposed without an mbid', () => {
  it('stores the candidate at once, then sets mbid, year and cover_url from a confident MusicBrainz match', async (t) => {
    const clock = new ManualClock();
    const { app, album, musicbrainz } = await startMetadataApp(t, { clock });
    const res = await api<Added>(app.baseUrl, 'POST', '/api/v1/queue', { artist: creditOf(album).toLowerCase(), album: album.title });
    assert.equal(res.status, 201);
    const id = res.body.items[0]?.id ?? '';
    assert.equal(res.body.items[0]?.mbid, undefined);
    assert.equal(musicbrainz.answered.length, 0, 'the request did not wait for MusicBrainz');
    await enrich(app, clock);
    const item = await pendingItem(app, id);
    assert.equal(item?.mbid, album.id);
    assert.equal(item?.year, yearOf(album));
    assert.equal(item?.cover_url, `/api/v1/covers/${album.id}`);
    assert.equal(item?.artist, creditOf(album).toLowerCase(), 'the name as the caller sent it');
    const query = musicbrainz.answered[0]?.query.get('query') ?? '';
    assert.match(query, /primarytype:"album"/);
    // Now known by mbid: an mbid-only proposal of the same album is a duplicate.
    const again = await api<{ duplicates: number }>(app.baseUrl, 'POST', '/api/v1/queue', { mbid: album.id });
    assert.equal(again.body.duplicates, 1);
  });

  it('leaves an album alone when MusicBrainz has two equally good matches, or none that is exact', async (t) => {
    const clock = new ManualClock();
    const { app, twin, album } = await startMetadataApp(t, { clock });
    const res = await api<Added>(app.baseUrl, 'POST', '/api/v1/queue', [
      { artist: creditOf(twin), album: twin.title },
      { artist: creditOf(album), album: album.title.split(' ')[0] ?? '' },
    ]);
    assert.equal(res.status, 201);
    await enrich(app, clock);
    for (const added of res.body.items) assert.deepEqual(await pendingItem(app, added.id), added);
  });

  it('enriches an item that comes back to the pending queue (any queue_added, not only POST /queue), behind where the walk got to', async (t) => {
    const clock = new ManualClock();
    const { app, album, musicbrainz } = await startMetadataApp(t, { clock });
    const res = await api<Added>(app.baseUrl, 'POST', '/api/v1/queue', { artist: creditOf(album), album: album.title });
    const id = res.body.items[0]?.id ?? '';
    assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${id}/reject`)).status, 200);
    // Added later, and looked up (no match): the walk has gone past the rejected item's place in the queue.
    await clock.advance(60_000);
    assert.equal((await api<Added>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Nobody Known', album: 'Nothing Released' })).status, 201);
    await enrich(app, clock);
    assert.equal(musicbrainz.requestsTo('/ws/2/release-group'), 1);
    assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${id}/restore`)).status, 200);
    await enrich(app, clock);
    assert.equal((await pendingItem(app, id))?.mbid, album.id, 'the walk went back for the restored item');
  });

  it('passes over tracks and items that have an mbid without asking MusicBrainz', async (t) => {
    const clock = new ManualClock();
    const { app, album, musicbrainz } = await startMetadataApp(t, { clock });
    const tracks = Array.from({ length: 250 }, (_, index) => ({ type: 'track', artist: `Artist ${index}`, title: `Song ${index}` }));
    const res = await api<Added>(app.baseUrl, 'POST', '/api/v1/queue', [...tracks, { artist: 'Known', album: 'Identified', mbid: '0a1b2c3d-0000-4000-8000-000000000001' }, { artist: creditOf(album), album: album.title }]);
    assert.equal(res.status, 201);
    await enrich(app, clock);
    assert.equal(musicbrainz.requestsTo('/ws/2/release-group'), 1, 'only the album without an mbid');
    assert.equal((await pendingItem(app, res.body.items[251]?.id ?? ''))?.mbid, album.id);
  });

  it('never replaces a year or cover the caller gave', async (t) => {
    const clock = new ManualClock();
    const { app, album } = await startMetadataApp(t, { clock });
    const res = await api<Added>(app.baseUrl, 'POST', '/api/v1/queue', { artist: creditOf(album), album: album.title, year: 1970, cover_url: 'https://example.org/cover.jpg' });
    await enrich(app, clock);
    const item = await pendingItem(app, res.body.items[0]?.id ?? '');
    assert.equal(item?.mbid, album.id);
    assert.equal(item?.year, 1970);
    assert.equal(item?.cover_url, 'https://example.org/cover.jpg');
  });

  it('answers 1000 candidates without mbids without a MusicBrainz request, and enriches them afterwards', async (t) => {
    const clock = new ManualClock();
    const { app, musicbrainz, album: group } = await startMetadataApp(t, { clock });
    const batch = Array.from({ length: 1000 }, (_, index) => ({ artist: `Artist ${index}`, album: `Album ${index}` }));
    batch[999] = { artist: creditOf(group), album: group.title };
    const started = performance.now();
    const res = await api<Added>(app.baseUrl, 'POST', '/api/v1/queue', batch);
    const took = performance.now() - started;
    assert.equal(res.status, 201);
    assert.equal(res.body.items.length, 1000);
    assert.equal(musicbrainz.answered.length, 0, 'no MusicBrainz request before the answer');
    assert.ok(took < 5000, `answered in ${Math.round(took)} ms`);
    await enrich(app, clock);
    assert.equal(musicbrainz.requestsTo('/ws/2/release-group'), 1000, 'each looked up once, after the answer');
    assert.equal((await pendingItem(app, res.body.items[999]?.id ?? ''))?.mbid, group.id);
  });

  it('picks up unenriched pending items at start-up, so a restart loses none', async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-enrich-restart-'));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    // First run: MusicBrainz cannot be reached (a closed port), so nothing is enriched.
    const first = await startMetadataApp(t, { dataDir, metadata: { musicbrainz: { url: 'http://127.0.0.1:9' } } });
    const res = await api<Added>(first.app.baseUrl, 'POST', '/api/v1/queue', { artist: creditOf(first.album), album: first.album.title });
    const id = res.body.items[0]?.id ?? '';
    await first.app.close();
    // Second run, on the real clock: the start-up scan finds the item.
    const second = await startMetadataApp(t, { dataDir });
    const item = await eventually(async () => {
      const found = await pendingItem(second.app, id);
      return found?.mbid === undefined ? undefined : found;
    }, 10_000, 'the item to be enriched');
    assert.equal(item.mbid, second.album.id);
  });

  it('does not hold up shutdown while a lookup waits for MusicBrainz', async (t) => {
    const clock = new ManualClock();
    const { app, album, musicbrainz } = await startMetadataApp(t, { clock, metadata: { musicbrainz: { url: 'http://127.0.0.1:9' } } });
    await api<Added>(app.baseUrl, 'POST', '/api/v1/queue', { artist: creditOf(album), album: album.title });
    // The lookup starts, is refused, and waits on the manual clock to try again, which never moves.
    await clock.advance(1000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await app.close();
    assert.ok(performance.now() - started < 3000, 'closed without waiting for the lookup');
    assert.equal(musicbrainz.answered.length, 0);
  });
});
