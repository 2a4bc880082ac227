import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_MBID_ONLY } from '../../../core/metadata/candidate-resolver.js';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';
import type { WishlistItem } from '../../../core/wishlist/wishlist-item.schema.js';
import { fakeMbid } from '../../fakes/musicbrainz-catalogue.js';
import { api } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { creditOf, startMetadataApp, yearOf } from './metadata-test-app.js';

interface Added {
  items: QueueItem[];
  duplicates: number;
}
interface Problem {
  type: string;
  status: number;
  detail?: string;
  errors?: { path: string; message: string }[];
}

const pendingTotal = async (baseUrl: string) => (await api<{ total: number }>(baseUrl, 'GET', '/api/v1/queue/pending')).body.total;

describe('POST /api/v1/queue with only an mbid', () => {
  it('fills artist, album, year, type and cover from the MusicBrainz release group before storing', async (t) => {
    const { app, album } = await startMetadataApp(t);
    const res = await api<Added>(app.baseUrl, 'POST', '/api/v1/queue', { mbid: album.id });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const [item] = res.body.items;
    assert.ok(item);
    assert.deepEqual(
      { artist: item.artist, album: item.album, year: item.year, type: item.type, cover_url: item.cover_url, mbid: item.mbid, source: item.source },
      { artist: creditOf(album), album: album.title, year: yearOf(album), type: 'album', cover_url: `/api/v1/covers/${album.id}`, mbid: album.id, source: 'api' },
    );
    const pending = await api<{ items: QueueItem[] }>(app.baseUrl, 'GET', '/api/v1/queue/pending');
    assert.deepEqual(pending.body.items, [item]);
  });

  it('keeps the fields the caller sent and fills only the rest', async (t) => {
    const { app, album } = await startMetadataApp(t);
    const res = await api<Added>(app.baseUrl, 'POST', '/api/v1/queue', [{ mbid: album.id, album: 'My own title', year: 1970, source: 'chat', score: 3 }]);
    assert.equal(res.status, 201);
    const [item] = res.body.items;
    assert.equal(item?.artist, creditOf(album));
    assert.equal(item?.album, 'My own title');
    assert.equal(item?.year, 1970);
    assert.equal(item?.source, 'chat');
    assert.equal(item?.score, 3);
  });

  it('skips an mbid-only candidate whose album is already queued by name, as any duplicate', async (t) => {
    const { app, album } = await startMetadataApp(t);
    const byName = await api<Added>(app.baseUrl, 'POST', '/api/v1/queue', { artist: creditOf(album), album: album.title });
    const again = await api<Added & { skipped: { duplicate_of: { id: string } }[] }>(app.baseUrl, 'POST', '/api/v1/queue', { mbid: album.id });
    assert.equal(again.status, 201);
    assert.equal(again.body.duplicates, 1);
    assert.equal(again.body.skipped[0]?.duplicate_of.id, byName.body.items[0]?.id);
  });

  it('answers 400 naming the mbid MusicBrainz does not know, and stores nothing of the batch', async (t) => {
    const { app, album } = await startMetadataApp(t);
    const unknown = fakeMbid(99, 'nobody');
    const res = await api<Problem>(app.baseUrl, 'POST', '/api/v1/queue', [{ artist: 'Low', album: 'Things We Lost in the Fire' }, { mbid: unknown }, { mbid: album.id }]);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors?.map((e) => e.path), ['body[1].mbid']);
    assert.match(res.body.errors?.[0]?.message ?? '', /no release group/);
    assert.equal(await pendingTotal(app.baseUrl), 0);
  });

  it('answers 400 naming artist for a candidate with neither artist nor mbid', async (t) => {
    const { app, musicbrainz } = await startMetadataApp(t);
    const res = await api<Problem>(app.baseUrl, 'POST', '/api/v1/queue', [{ artist: 'Low' }, { album: 'Orphan', year: 2001 }]);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors?.map((e) => e.path), ['body[1].artist']);
    assert.equal(musicbrainz.answered.length, 0);
  });

  it(`refuses more than ${MAX_MBID_ONLY} mbid-only candidates in one request with a 400, before asking MusicBrainz`, async (t) => {
    const { app, catalogue, musicbrainz } = await startMetadataApp(t);
    const batch = catalogue.releaseGroups.slice(0, MAX_MBID_ONLY + 1).map((group) => ({ mbid: group.id }));
    const res = await api<Problem>(app.baseUrl, 'POST', '/api/v1/queue', batch);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors?.map((e) => e.path), [`body[${MAX_MBID_ONLY}]`]);
    assert.match(res.body.errors?.[0]?.message ?? '', /at most 10/);
    assert.equal(musicbrainz.answered.length, 0);
    assert.equal(await pendingTotal(app.baseUrl), 0);
    const allowed = await api<Added>(app.baseUrl, 'POST', '/api/v1/queue', batch.slice(0, MAX_MBID_ONLY));
    assert.equal(allowed.status, 201);
    assert.equal(allowed.body.items.length + allowed.body.duplicates, MAX_MBID_ONLY);
  });

  it('fills an mbid-only candidate on a fresh install, without metadata.contact (issue #28)', async (t) => {
    const { app, album } = await startMetadataApp(t, { withoutContact: true });
    const res = await api<Added>(app.baseUrl, 'POST', '/api/v1/queue', { mbid: album.id });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual([res.body.items[0]?.artist, res.body.items[0]?.album], [creditOf(album), album.title]);
    assert.equal(await pendingTotal(app.baseUrl), 1);
  });

  it('answers 503 when MusicBrainz cannot be reached, and stores nothing', async (t) => {
    const clock = new ManualClock();
    const { app, album } = await startMetadataApp(t, { clock, metadata: { musicbrainz: { url: 'http://127.0.0.1:9' } } });
    let settled = false;
    const answer = api<Problem>(app.baseUrl, 'POST', '/api/v1/queue', { mbid: album.id }).finally(() => {
      settled = true;
    });
    while (!settled) {
      await clock.advance(1000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const res = await answer;
    assert.equal(res.status, 503);
    assert.equal(res.body.type, 'urn:crateflow:problem:upstream-unavailable');
    assert.equal(await pendingTotal(app.baseUrl), 0);
  });
});

describe('POST /api/v1/wishlist with only an mbid', () => {
  it('fills artist, album, year and type from MusicBrainz', async (t) => {
    const { app, album } = await startMetadataApp(t);
    const res = await api<WishlistItem>(app.baseUrl, 'POST', '/api/v1/wishlist', { mbid: album.id });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(
      { artist: res.body.artist, album: res.body.album, year: res.body.year, type: res.body.type, mbid: res.body.mbid, status: res.body.status },
      { artist: creditOf(album), album: album.title, year: yearOf(album), type: 'album', mbid: album.id, status: 'wanted' },
    );
  });

  it('answers 400 naming body.mbid for an mbid MusicBrainz does not know', async (t) => {
    const { app } = await startMetadataApp(t);
    const res = await api<Problem>(app.baseUrl, 'POST', '/api/v1/wishlist', { mbid: fakeMbid(99, 'nobody') });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors?.map((e) => e.path), ['body.mbid']);
    assert.equal((await api<{ total: number }>(app.baseUrl, 'GET', '/api/v1/wishlist')).body.total, 0);
  });
});
